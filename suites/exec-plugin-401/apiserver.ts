// The suite's checks of the API server itself, with the harness as a plain
// HTTPS client (no exec plugin): the token webhook is wired in, and a revoked
// token lives on for the server's success cache. Predictions come from
// src/model/apiserver-authn.ts replayed at the times the requests were sent.
import { request } from 'node:https';
import type { StartedTokenWebhook } from '../../src/authn/token-webhook.ts';
import { ApiServerAuthModel, TOKEN_SUCCESS_CACHE_MS } from '../../src/model/apiserver-authn.ts';
import { randomBytes } from 'node:crypto';
import { TokenBook, tokenFingerprint } from '../../src/authn/token-book.ts';
import type { CheckResult } from '../../src/report/model.ts';
import { judge } from '../../src/run/prediction.ts';
import { REVOCATION_DELAY, WEBHOOK_AUTHENTICATES } from './checks.ts';
import { sleep } from '../../src/core/time.ts';

const MODEL = 'API server authn model (src/model/apiserver-authn.ts)';

export interface Target {
  server: string;
  caPem: string;
  path: string;
}

/** GET with a bearer token; the status, or 0 when no answer came. */
export function getWithToken(t: Target, token: string, timeoutMs = 15_000): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      `${t.server}${t.path}`,
      { ca: t.caPem, headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, timeout: timeoutMs },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
    req.end();
  });
}

interface Sent {
  label: string;
  at: number;
  /** Which token it carried. Not named `token`: the redactor learns any value under a key named so, and would then hide these words everywhere. */
  carried: 'issued' | 'unknown';
  status: number;
  /** Reviews of that token the webhook recorded while the request was in flight. */
  reviews: number;
}

/** A request whose reviews are counted by fingerprint over its own window. */
async function send(
  t: Target,
  hook: StartedTokenWebhook,
  label: string,
  token: string,
  fingerprint: string,
  which: Sent['carried'],
  first: number,
): Promise<Sent> {
  const before = hook.reviews().filter((r) => r.fingerprint === fingerprint).length;
  const at = Date.now() - first;
  const status = await getWithToken(t, token);
  const reviews = hook.reviews().filter((r) => r.fingerprint === fingerprint).length - before;
  return { label, at, carried: which, status, reviews };
}

/** Replays the API server model at the times the requests were sent, for a token issued at 0 and revoked at `revokedAt`. */
function replay(
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

const show = (v: Array<{ label: string; status: number; reviewed: boolean }>) =>
  v.map((x) => `${x.label}: ${x.status}${x.reviewed ? ' (reviewed)' : ' (no review)'}`).join('; ');
const observedOf = (sent: Sent[]) => sent.map((s) => ({ label: s.label, status: s.status, reviewed: s.reviews > 0 }));

export async function checkWebhookAuthenticates(t: Target, hook: StartedTokenWebhook): Promise<CheckResult> {
  const startedAt = new Date();
  const issued = hook.book.issue('apiserver-check', { lifetimeMs: 60_000 });
  // A token the webhook never issued.
  const stranger = `cp401.stranger.${randomBytes(18).toString('base64url')}`;
  const first = Date.now();
  const sent = [
    await send(t, hook, 'issued token', issued.token, issued.fingerprint, 'issued', first),
    await send(t, hook, 'unknown token', stranger, tokenFingerprint(stranger), 'unknown', first),
  ];
  const predicted = replay(sent, undefined);
  const review = hook.reviews().find((r) => r.fingerprint === issued.fingerprint);
  return judge(WEBHOOK_AUTHENTICATES, {
    prediction: {
      value: predicted,
      model: MODEL,
      because:
        'an issued token is accepted by the webhook (200 on what RBAC grants its group), an unknown one refused (401)',
    },
    observed: observedOf(sent),
    show,
    actor: 'kube-apiserver',
    startedAt,
    evidence: [
      { kind: 'data', label: 'requests', data: sent },
      { kind: 'data', label: "the webhook's review of the issued token", data: review ?? 'none' },
    ],
  });
}

export async function checkRevocationDelay(t: Target, hook: StartedTokenWebhook): Promise<CheckResult> {
  const startedAt = new Date();
  const tok = hook.book.issue('revocation-check', { lifetimeMs: 600_000 });
  const first = Date.now();
  const sent: Sent[] = [];
  sent.push(await send(t, hook, 'before revocation', tok.token, tok.fingerprint, 'issued', first));
  const revokedAt = Date.now() - first;
  hook.book.revoke({ token: tok.token });
  sent.push(await send(t, hook, 'right after', tok.token, tok.fingerprint, 'issued', first));
  await sleep(Math.max(0, 5000 - (Date.now() - first)));
  sent.push(await send(t, hook, '+5s', tok.token, tok.fingerprint, 'issued', first));
  // Past the cache entry stored at the first review (which ended by the time the first request did).
  await sleep(Math.max(0, TOKEN_SUCCESS_CACHE_MS + 1500 - (Date.now() - first)));
  sent.push(await send(t, hook, '+11.5s', tok.token, tok.fingerprint, 'issued', first));
  sent.push(await send(t, hook, 'once more', tok.token, tok.fingerprint, 'issued', first));
  const predicted = replay(sent, revokedAt);
  return judge(REVOCATION_DELAY, {
    prediction: {
      value: predicted,
      model: MODEL,
      because: `the success of a review is cached ${TOKEN_SUCCESS_CACHE_MS / 1000}s (TokenSuccessCacheTTL); refusals are not cached`,
    },
    observed: observedOf(sent),
    show,
    actor: 'kube-apiserver',
    startedAt,
    evidence: [
      {
        kind: 'data',
        label: 'requests (ms from the first; reviews the webhook recorded during each)',
        data: { revokedAt, sent },
      },
      {
        kind: 'data',
        label: 'webhook reviews of the token',
        data: hook.reviews().filter((r) => r.fingerprint === tok.fingerprint),
      },
    ],
  });
}
