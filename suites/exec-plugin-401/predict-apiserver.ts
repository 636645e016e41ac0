// What the API server does with the harness's own bearer requests, from its
// authn model (src/model/apiserver-authn.ts: the 10s success cache in front of
// the token webhook, the webhook's TokenBook on a virtual clock), replayed at
// the times the requests were really sent.
import { ApiServerAuthModel } from '../../src/model/apiserver-authn.ts';
import { TokenBook } from '../../src/run/kit.ts';

export interface Sent {
  label: string;
  at: number;
  /** Which token it carried. Not named `token`: the redactor learns any value under a key named so, and would then hide these words everywhere. */
  carried: 'issued' | 'unknown';
  status: number;
  /** Reviews of that token the webhook recorded while the request was in flight. */
  reviews: number;
}

/** Replays the API server model at the times the requests were sent, for a token issued at 0 and revoked at `revokedAt`. */
export function replay(
  sent: Sent[],
  revokedAt: number | undefined,
): Array<{ label: string; status: number; reviewed: boolean }> {
  let clock = 0;
  const book = new TokenBook({ now: () => clock });
  const issued = book.issue('check').token;
  const model = new ApiServerAuthModel({
    review: (token, now) => {
      clock = now;
      return book.lookup(token).verdict;
    },
    certValid: () => false,
  });
  let revoked = false;
  return sent.map((s) => {
    if (revokedAt !== undefined && !revoked && s.at >= revokedAt) {
      clock = revokedAt;
      book.revoke({ token: issued });
      revoked = true;
    }
    const r = model.serve(s.at, { token: s.carried === 'issued' ? issued : 'unknown' });
    return { label: s.label, status: r.status, reviewed: r.reviewed };
  });
}
