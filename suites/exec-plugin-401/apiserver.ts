// The suite's checks of the API server itself, with the harness as a plain
// HTTPS client (no exec plugin): the token webhook is wired in, and a revoked
// token lives on for the server's success cache. Predictions come from
// src/model/apiserver-authn.ts replayed at the times the requests were sent.
import { randomBytes } from 'node:crypto';
import { TOKEN_SUCCESS_CACHE_MS } from '../../src/model/apiserver-authn.ts';
import {
  bearerRequest,
  judge,
  sleep,
  tokenFingerprint,
  type CaseContext,
  type CheckResult,
  type ClusterView,
  type StartedTokenWebhook,
} from '../../src/run/kit.ts';
import { REVOCATION_DELAY, WEBHOOK_AUTHENTICATES } from './checks.ts';
import { replay, type Sent } from './predict-apiserver.ts';

const MODEL = 'API server authn model (src/model/apiserver-authn.ts)';

/** Where the checks send their requests: the cluster, and the path every request GETs. */
export interface Target {
  cluster: ClusterView;
  path: string;
  ctx: CaseContext;
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
  const at = t.ctx.clock.now() - first;
  const { status } = await bearerRequest(t.cluster, token, { path: t.path });
  const reviews = hook.reviews().filter((r) => r.fingerprint === fingerprint).length - before;
  return { label, at, carried: which, status, reviews };
}

const show = (v: Array<{ label: string; status: number; reviewed: boolean }>) =>
  v.map((x) => `${x.label}: ${x.status}${x.reviewed ? ' (reviewed)' : ' (no review)'}`).join('; ');
const observedOf = (sent: Sent[]) => sent.map((s) => ({ label: s.label, status: s.status, reviewed: s.reviews > 0 }));

export async function checkWebhookAuthenticates(t: Target, hook: StartedTokenWebhook): Promise<CheckResult> {
  const issued = hook.book.issue('apiserver-check', { lifetimeMs: 60_000 });
  // A token the webhook never issued.
  const stranger = `cp401.stranger.${randomBytes(18).toString('base64url')}`;
  const first = t.ctx.clock.now();
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
    evidence: [
      { kind: 'data', label: 'requests', data: sent },
      { kind: 'data', label: "the webhook's review of the issued token", data: review ?? 'none' },
    ],
  });
}

export async function checkRevocationDelay(t: Target, hook: StartedTokenWebhook): Promise<CheckResult> {
  const clock = t.ctx.clock;
  const tok = hook.book.issue('revocation-check', { lifetimeMs: 600_000 });
  const first = clock.now();
  const sent: Sent[] = [];
  sent.push(await send(t, hook, 'before revocation', tok.token, tok.fingerprint, 'issued', first));
  const revokedAt = clock.now() - first;
  hook.book.revoke({ token: tok.token });
  sent.push(await send(t, hook, 'right after', tok.token, tok.fingerprint, 'issued', first));
  await sleep(5000 - (clock.now() - first), clock);
  sent.push(await send(t, hook, '+5s', tok.token, tok.fingerprint, 'issued', first));
  // Past the cache entry stored at the first review (which ended by the time the first request did).
  await sleep(TOKEN_SUCCESS_CACHE_MS + 1500 - (clock.now() - first), clock);
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
