// credprov's predictions for the vendor-oci cases, from its model of
// `oci ce cluster generate-token` (src/model/oci-generate-token.ts: a request
// signed locally with the profile's API key, no network call, a v1beta1 answer
// whatever the client asks, an expiry 4 minutes on, no cache) and of OKE's
// authenticator (Container Engine accepts a token whose signature verifies
// with a key the tenancy holds, and names the key's user). Pure: the profile
// the home holds and what the client asks come in as arguments.
import { OCI_EXEC_API_VERSION, predictGenerateToken } from '../../src/model/oci-generate-token.ts';
import type { Prediction } from '../../src/run/kit.ts';
import { V1, type Profile } from './plan.ts';

export const MODEL =
  "oci generate-token model (src/model/oci-generate-token.ts: containerengine_cli_extended.py's locally signed " +
  'cluster_request, its fixed v1beta1 answer and 4-minute expiry) + OKE authentication (the signature by a key the tenancy holds)';

/** One call: what the plugin did, what Container Engine said of its token, and what the API server answered. */
export interface LoginView {
  /** 0, or 'non-zero' (the code itself is Python's, not the model's). */
  pluginExit: 0 | 'non-zero';
  /** The answer's apiVersion ('' when it printed none). */
  apiVersion: string;
  /** Container Engine's answers to the token's request (the token webhook asks it), distinct, in order. */
  containerEngine: string[];
  /** The API server's status, or 'no request' when the client got no credential it would send. */
  status: number | 'no request';
  /** kubectl auth whoami's username (kubectl cases only). */
  username?: string;
}

export interface Tenancy {
  /** The user OCID whose key the tenancy holds: OKE's username for a token that key signed. */
  user: string;
}

/** What a call as a user with `profile` in its home gives, the client asking `asked` (v1beta1: OKE's kubeconfig). */
export function predictLogin(
  profile: Profile,
  tenancy: Tenancy,
  okStatus: number,
  o: { withUsername: boolean; asked?: string },
): Prediction<LoginView> {
  const m = predictGenerateToken();
  const asked = o.asked ?? OCI_EXEC_API_VERSION;
  if (profile === 'missing')
    return {
      model: MODEL,
      because: "the profile's key_file is not there: the SDK cannot sign, the plugin fails and prints no credential",
      value: { pluginExit: 'non-zero', apiVersion: '', containerEngine: [], status: 'no request' },
    };
  const mismatch = asked !== m.apiVersion;
  if (mismatch)
    return {
      model: MODEL,
      because: `the plugin answers ${m.apiVersion} whatever KUBERNETES_EXEC_INFO asks; a client asking ${asked} refuses the answer and sends nothing`,
      value: { pluginExit: 0, apiVersion: m.apiVersion, containerEngine: [], status: 'no request' },
    };
  if (profile === 'unregistered')
    return {
      model: MODEL,
      because:
        'signing is local, so the plugin prints a token; Container Engine finds no key for its keyId (401 NotAuthenticated) and the API server refuses it',
      value: { pluginExit: 0, apiVersion: m.apiVersion, containerEngine: ['401'], status: 401 },
    };
  return {
    model: MODEL,
    because: `the token is a cluster_request signed by the tenancy's key: Container Engine names ${tenancy.user}, the API server's username`,
    value: {
      pluginExit: 0,
      apiVersion: m.apiVersion,
      containerEngine: ['200'],
      status: okStatus,
      ...(o.withUsername ? { username: tenancy.user } : {}),
    },
  };
}

export function showLogin(v: LoginView): string {
  const exit = v.pluginExit === 0 ? 'oci exit 0' : 'oci failed';
  const answer = v.apiVersion ? `, answered ${v.apiVersion}` : ', no answer';
  const ce = v.containerEngine.length
    ? `; Container Engine ${v.containerEngine.join(', ')}`
    : '; Container Engine not asked';
  const api = v.status === 'no request' ? '; no request sent' : `; kube-apiserver ${v.status}`;
  return `${exit}${answer}${ce}${api}${v.username ? ` as ${v.username}` : ''}`;
}

/** Two calls in one home: the plugin's runs per call, whether the tokens follow their signing second, the expiry. */
export interface FreshView {
  runsPerCall: number[];
  /** Two tokens are the same string exactly when signed in the same second (the Date they carry). */
  tokenPerSigningSecond: boolean;
  /** Every run's expirationTimestamp lies in [its start + 4 min, + slack]. */
  expiryAsModel: boolean;
}

export function predictFresh(calls: number): Prediction<FreshView> {
  const m = predictGenerateToken();
  return {
    model: MODEL,
    because:
      `no cache: each exec signs the request again and claims expiry ${m.expiresAfterMs / 60_000} min after it; ` +
      'rsa-sha256 (PKCS#1 v1.5) is deterministic and the Date has whole seconds, so two runs in one second print the same token',
    value: { runsPerCall: Array.from({ length: calls }, () => 1), tokenPerSigningSecond: true, expiryAsModel: true },
  };
}

export const showFresh = (v: FreshView): string =>
  `runs per call ${v.runsPerCall.join(', ')}; tokens ${v.tokenPerSigningSecond ? 'the same exactly when signed in the same second' : 'not a function of their signing second'}; expiry ${v.expiryAsModel ? 'run start + 4 min' : 'not run start + 4 min'}`;

/** Whether tokens are equal exactly when their signed Dates are (pairs of token and the Date it carries). */
export function tokensFollowSeconds(signed: Array<{ token: string; date: string }>): boolean {
  return signed.every((a, i) => signed.slice(i + 1).every((b) => (a.token === b.token) === (a.date === b.date)));
}

/** Whether a run's claimed expiry is the model's: at least 4 min after its start, at most `slackMs` later than that. */
export function expiryAsModel(startMs: number, expirationTimestamp: string | undefined, slackMs: number): boolean {
  const exp = Date.parse(expirationTimestamp ?? '');
  const claimed = predictGenerateToken().expiresAfterMs;
  return !Number.isNaN(exp) && exp >= startMs + claimed - 1000 && exp <= startMs + claimed + slackMs;
}

/** The problem a v1 user's call shows when the plugin ignores what the client asked (the finding). */
export function execInfoProblem(v: LoginView, asked = V1): string[] {
  return v.apiVersion && v.apiVersion !== asked
    ? [
        `oci answers ${v.apiVersion} to a client asking ${asked} (KUBERNETES_EXEC_INFO), so a v1 kubeconfig user cannot use it`,
      ]
    : [];
}
