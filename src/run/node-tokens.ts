// What a suite asks the API server as a kubelet (SA-TOKEN-OTHER-NODE): who a kubelet
// kubeconfig authenticates as (SelfSubjectReview), the TokenRequest the
// kubelet makes for a pod's plugin (POST serviceaccounts/<sa>/token, bound to
// the pod), read as its HTTP status and message.
import { kubeApi } from '../cluster/api.ts';
import type { Redactor } from '../core/redact.ts';

/** The API server's answer to one kubelet's TokenRequest for a pod. */
export interface NodeTokenView {
  status: number;
  /** Who refused it: the authorization layer (its "cannot create resource" message) or admission (NodeRestriction). */
  refusedBy?: 'node authorizer' | 'NodeRestriction' | undefined;
  /** Predicted: the reason the API server's message must carry; observed: its whole message. */
  says?: string | undefined;
  /** An issued token's pod and node claims: `<pod> on <node>`. */
  boundTo?: string | undefined;
}

export interface Identity {
  username: string;
  groups: string[];
}

/** Who the API server takes this kubeconfig's client for (authentication.k8s.io/v1 SelfSubjectReview). */
export async function whoAmI(kubeconfig: string): Promise<Identity> {
  const api = await kubeApi({ kubeconfig });
  const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
  const r = await api.send('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', body);
  if (r.status !== 201) throw new Error(`SelfSubjectReview with ${kubeconfig}: HTTP ${r.status}: ${messageOf(r.body)}`);
  const user = (JSON.parse(r.body) as { status?: { userInfo?: { username?: string; groups?: string[] } } }).status
    ?.userInfo;
  return { username: user?.username ?? '', groups: user?.groups ?? [] };
}

export interface PodTokenRequest {
  namespace: string;
  serviceAccount: string;
  pod: { name: string; uid: string };
  audience: string;
}

/** The API server's answer: the view the check compares, and its whole message (for the evidence). */
export interface PodTokenAnswer {
  view: NodeTokenView;
  message?: string;
}

/**
 * The kubelet's TokenRequest for a plugin (pkg/credentialprovider/plugin: one audience, bound to the
 * pod, expirationSeconds unset), made with `kubeconfig`. An issued token goes to the redactor; only its
 * pod and node claims are kept.
 */
export async function requestPodToken(
  kubeconfig: string,
  r: PodTokenRequest,
  redactor: Redactor,
): Promise<PodTokenAnswer> {
  const api = await kubeApi({ kubeconfig });
  const body = {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: {
      audiences: [r.audience],
      boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: r.pod.name, uid: r.pod.uid },
    },
  };
  const path = `/api/v1/namespaces/${r.namespace}/serviceaccounts/${r.serviceAccount}/token`;
  const answer = await api.send('POST', path, body);
  if (answer.status >= 200 && answer.status < 300) {
    const token = (JSON.parse(answer.body) as { status?: { token?: string } }).status?.token;
    redactor.add(token);
    return { view: { status: answer.status, boundTo: boundTo(token) } };
  }
  const message = messageOf(answer.body);
  return { view: { status: answer.status, refusedBy: refusalStage(message), says: message }, message };
}

/**
 * Which stage refused: the authorization layer words every refusal as `User "…" cannot create resource
 * "serviceaccounts/token" …` (apiserver responsewriters.forbiddenMessage); anything else came from admission.
 */
export function refusalStage(message: string): NonNullable<NodeTokenView['refusedBy']> {
  return /cannot create resource "serviceaccounts\/token"/.test(message) ? 'node authorizer' : 'NodeRestriction';
}

/** `<pod> on <node>` from a token's kubernetes.io claims. */
function boundTo(token: string | undefined): string | undefined {
  const payload = token?.split('.')[1];
  if (!payload) return undefined;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
    'kubernetes.io'?: { pod?: { name?: string }; node?: { name?: string } };
  };
  const k = claims['kubernetes.io'];
  return `${k?.pod?.name ?? '(no pod claim)'} on ${k?.node?.name ?? '(no node claim)'}`;
}

function messageOf(body: string): string {
  try {
    const status = JSON.parse(body) as { kind?: string; message?: string };
    if (status.kind === 'Status' && status.message) return status.message;
  } catch {
    // not JSON: the body's first line below
  }
  return body.split('\n')[0]!.slice(0, 400);
}
