// The vendor-gcp cases where the KUBE_SIDECAR_* env makes the kubelet cache:
// a Registry entry serving a second repository, an entry that outlives the
// token it holds, and an answer without credentials (the metadata server
// down) kept for the entry's whole duration.
import { caseOf, judge, sleepUntil, type Case, type GcpLab } from '../../src/run/kit.ts';
import { CACHE_WITHIN_TOKEN, OUTAGE, REGISTRY_CACHE } from './checks.ts';
import {
  AFTER_TOKEN_EXPIRY_MS,
  ENTRIES,
  FAILING_POD_TIMEOUT_MS,
  IMAGES,
  providerConfig,
  TOKEN_LIFETIME_S,
} from './plan.ts';
import { predictPulls } from './predict.ts';
import { pullIn, showViews, tokenExpiry, viewOf, windowEvidence } from './session.ts';

const ACTOR = 'the kubelet, auth-provider-gcp and the registry';
const UP = { up: true };

export function registryCacheCase(lab: GcpLab): Case {
  return caseOf(REGISTRY_CACHE, async (ctx) => {
    const t0 = ctx.clock.now();
    const prediction = predictPulls(providerConfig(), [
      { img: IMAGES.registryCacheA, now: t0, state: UP, tokenExpiresAt: t0 + TOKEN_LIFETIME_S * 1000 },
      { img: IMAGES.registryCacheB, now: t0 + 5_000, state: UP },
    ]);
    const a = await pullIn(ctx, lab, IMAGES.registryCacheA);
    const b = await pullIn(ctx, lab, IMAGES.registryCacheB);
    const answer = a.execs[0]?.response;
    return judge(REGISTRY_CACHE, {
      prediction,
      observed: [viewOf(a), viewOf(b)],
      show: showViews,
      evidence: windowEvidence(lab, [a, b]),
      actor: ACTOR,
      startedAt: ctx.startedAt,
      note: answer ? `the plugin answered ${answer.cacheKeyType} ${answer.cacheDuration}` : undefined,
    });
  });
}

/** A 10m entry over a token of at most 40 s: the second pull of the image comes after the token died. */
export function cacheWithinTokenCase(lab: GcpLab): Case {
  return caseOf(CACHE_WITHIN_TOKEN, async (ctx) => {
    const t0 = ctx.clock.now();
    const plannedExpiry = t0 + TOKEN_LIFETIME_S * 1000;
    const prediction = predictPulls(providerConfig(), [
      { img: IMAGES.longCache, now: t0, state: UP, tokenExpiresAt: plannedExpiry },
      { img: IMAGES.longCache, now: plannedExpiry + AFTER_TOKEN_EXPIRY_MS, state: UP },
    ]);
    const first = await pullIn(ctx, lab, IMAGES.longCache);
    const expiry = tokenExpiry(first);
    if (expiry !== undefined) await sleepUntil(expiry + AFTER_TOKEN_EXPIRY_MS, ctx.clock);
    const second = await pullIn(ctx, lab, IMAGES.longCache, { timeoutMs: FAILING_POD_TIMEOUT_MS });
    const views = [viewOf(first), viewOf(second)];
    const stale = views[1]!.invoked.length === 0 && views[1]!.logins.includes('_token expired');
    const lifeLeft = expiry !== undefined ? Math.round((expiry - first.createdAt) / 1000) : undefined;
    return judge(CACHE_WITHIN_TOKEN, {
      prediction,
      observed: views,
      show: showViews,
      evidence: windowEvidence(lab, [first, second]),
      actor: ACTOR,
      startedAt: ctx.startedAt,
      ...(expiry === undefined
        ? { invalidBecause: 'the first pull handed out no token, so there is no expiry to wait past' }
        : {}),
      problems: stale
        ? [
            `auth-provider-gcp answered cacheDuration ${ENTRIES.longCache.env.KUBE_SIDECAR_CACHE_DURATION} for a token with ${lifeLeft}s left, ` +
              `so the kubelet pulled with that token ${Math.round((second.createdAt - expiry!) / 1000)}s after it expired and the registry refused it`,
          ]
        : [],
    });
  });
}

/** The metadata server down for one pull, back for the next: the empty answer stays cached for the Registry entry's hour. */
export function outageCase(lab: GcpLab): Case {
  return caseOf(OUTAGE, async (ctx) => {
    const t0 = ctx.clock.now();
    const prediction = predictPulls(providerConfig(), [
      { img: IMAGES.outageA, now: t0, state: { up: false } },
      { img: IMAGES.outageB, now: t0 + 5_000, state: UP },
    ]);
    lab.fake.setUnavailable(true);
    let during;
    try {
      during = await pullIn(ctx, lab, IMAGES.outageA, { timeoutMs: FAILING_POD_TIMEOUT_MS });
    } finally {
      lab.fake.setUnavailable(false);
    }
    const after = await pullIn(ctx, lab, IMAGES.outageB, { timeoutMs: FAILING_POD_TIMEOUT_MS });
    const views = [viewOf(during), viewOf(after)];
    const exec = during.execs[0];
    const kept = exec?.exitCode === 0 && views[1]!.invoked.length === 0 && views[1]!.pull === 'failure';
    return judge(OUTAGE, {
      prediction,
      observed: views,
      show: showViews,
      evidence: windowEvidence(lab, [during, after]),
      actor: ACTOR,
      startedAt: ctx.startedAt,
      problems: kept
        ? [
            `during the outage auth-provider-gcp exited 0 with no auth and cacheDuration ${exec.response?.cacheDuration ?? '?'} (${exec.response?.cacheKeyType ?? '?'}), ` +
              'so the kubelet kept that empty answer and pulled the next image of the registry without credentials after the metadata server was back',
          ]
        : [],
    });
  });
}
