// What the kubelet does with one run's stdout, step by step in its order
// (pkg/credentialprovider/plugin plugin.go, v1.37.1), so credprov predicts
// the verdict and the message the kubelet logs:
//   1. ExecPlugin: read apiVersion and kind (json.DefaultMetaFactory.Interpret:
//      one JSON value, both fields strings or null), the apiVersion equal to
//      the provider's, then the strict decode (decodeResponse in
//      src/api/credentialprovider/response.ts);
//   2. provide(): with a service account token (tokenAttributes) and a cacheType
//      other than Token, a password equal to the token refuses the answer
//      (1.34+, version table rejectsTokenAsPassword);
//   3. provide(): then cacheKeyType must be Image, Registry or Global.
// Step 2 before step 3 was found by the differential test against the
// kubelet's own code (src/differential/kubelet.test.ts): an answer with both
// defects is refused for the token.
import { decodeResponse } from '../api/credentialprovider/response.ts';
import type { CredentialProviderResponse } from '../api/credentialprovider/types.ts';
import type { KubeBehaviour } from '../versions/table.ts';

/** The kubelet's checks, in the order it makes them; each refusal's message holds the step's phrase. */
export const KUBELET_ANSWER_STEPS = [
  { step: 'gvk', phrase: 'error reading GVK from response' },
  { step: 'apiVersion', phrase: 'apiVersion from credential plugin response did not match' },
  { step: 'decode', phrase: 'error decoding credential provider plugin response from stdout' },
  {
    step: 'token-as-password',
    phrase:
      "credential provider plugin returned the service account token as the password which is not allowed when service account cache type is not set to 'Token'",
  },
  { step: 'cacheKeyType', phrase: 'did not return a valid cacheKeyType' },
] as const;

export type KubeletAnswerStep = (typeof KUBELET_ANSWER_STEPS)[number]['step'];

export type KubeletAnswerVerdict =
  { ok: true; response: CredentialProviderResponse } | { ok: false; step: KubeletAnswerStep; error: string };

export interface AnswerContext {
  /** The provider entry's apiVersion. */
  apiVersion: string;
  /** With tokenAttributes: the token the kubelet sent, and the provider's cacheType. */
  serviceAccountToken?: string;
  cacheType?: string;
  behaviour: Pick<KubeBehaviour, 'rejectsTokenAsPassword'>;
}

/** The step of the kubelet's message (one of KUBELET_ANSWER_STEPS), from the phrase it holds. */
export function stepOf(message: string): KubeletAnswerStep | undefined {
  return KUBELET_ANSWER_STEPS.find((s) => message.includes(s.phrase))?.step;
}

export function kubeletAnswerVerdict(stdout: string, c: AnswerContext): KubeletAnswerVerdict {
  const d = decodeResponse(stdout, c.apiVersion);
  if (!d.ok && d.reason !== 'cacheKeyType') return { ok: false, step: stepOf(d.error) ?? 'decode', error: d.error };
  const response = d.ok ? d.response : d.response!;
  if (c.serviceAccountToken && c.cacheType !== 'Token' && c.behaviour.rejectsTokenAsPassword) {
    if (Object.values(response.auth ?? {}).some((a) => a.password === c.serviceAccountToken))
      return { ok: false, step: 'token-as-password', error: KUBELET_ANSWER_STEPS[3].phrase };
  }
  if (!d.ok) return { ok: false, step: 'cacheKeyType', error: d.error };
  return { ok: true, response };
}
