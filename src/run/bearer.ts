// The API server as a plain HTTPS client meets it, with a bearer token and no
// client library: the status is the observation (a refusal is an answer), so
// no answer at all reads status 0. For checks of the API server's own
// authenticators (a token webhook, a JWT authenticator), where no exec plugin
// or client stands between the token and the request.
import { request } from 'node:https';
import type { ClusterView } from './cluster-view.ts';

export interface BearerAnswer {
  /** The HTTP status, or 0 when no answer came (a refused connection, the timeout). */
  status: number;
  body: string;
}

/** One request with `Authorization: Bearer <token>`, trusting the cluster's CA; `body` is sent as JSON. */
export function bearerRequest(
  cluster: Pick<ClusterView, 'server' | 'caPem'>,
  token: string,
  o: { method?: 'GET' | 'POST'; path: string; body?: unknown; timeoutMs?: number },
): Promise<BearerAnswer> {
  return new Promise((resolve) => {
    const req = request(
      `${cluster.server}${o.path}`,
      {
        method: o.method ?? 'GET',
        ca: cluster.caPem,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        timeout: o.timeoutMs ?? 15_000,
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += String(c)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end(o.body !== undefined ? JSON.stringify(o.body) : undefined);
  });
}

/** Who the API server says the token's bearer is (a SelfSubjectReview): the status, and the username when authenticated. */
export async function selfSubjectReview(
  cluster: Pick<ClusterView, 'server' | 'caPem'>,
  token: string,
): Promise<{ status: number; username?: string }> {
  const r = await bearerRequest(cluster, token, {
    method: 'POST',
    path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  let username: string | undefined;
  try {
    username = (JSON.parse(r.body) as { status?: { userInfo?: { username?: string } } }).status?.userInfo?.username;
  } catch {
    // A 401 body is a Status; only a review names a user.
  }
  return { status: r.status, ...(username ? { username } : {}) };
}
