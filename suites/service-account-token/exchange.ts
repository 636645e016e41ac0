// SA-EXCHANGE-ACCESS and SA-EXCHANGE-REVOKED: a real token exchange. The
// exchange registry's token server validates the SA token the plugin hands
// on as the password (offline: JWKS signature, issuer, audience, expiry;
// online: TokenReview) and maps the SA to repositories. Then the tokens two
// pods got are validated again after the pod, or the SA, is deleted.
import { decodeJwt } from 'jose';
import {
  deletePod,
  deleteServiceAccount,
  EXCHANGE_USERNAME,
  harnessFailed,
  judge,
  poll,
  type Case,
  type CheckResult,
  type Clock,
  type Validation,
} from '../../src/run/kit.ts';
import { EXCHANGE_ACCESS, EXCHANGE_REVOKED } from './checks.ts';
import type { SuiteFixture } from './fixture.ts';
import { EXCHANGE_PODS, exchangeImage, REVOCATION_SETTLE_MS } from './plan.ts';
import { exchangePodKey, predictExchangeAccess, predictRevocation, REVOCATION_STEPS } from './predict-access.ts';
import { podInvocations, showExchange, showRevocation, type ExchangeView, type TokenVerdict } from './views.ts';

/** A validation as evidence: never the token, only its hash's head. */
const validationSummary = (v: Validation) => ({
  at: v.at,
  token: `sha256:${v.tokenSha256.slice(0, 16)}`,
  offline: v.offline.ok ? 'ok' : v.offline.reason,
  online: v.online ? (v.online.ok ? `ok (${v.online.username})` : v.online.reason) : 'not asked',
  granted: v.access,
});

const verdictOf = (v: Validation): TokenVerdict => ({
  signature: v.offline.ok ? 'valid' : 'invalid',
  tokenReview: v.online?.ok ? 'authenticated' : 'refused',
});

export const exchangeCase = (f: SuiteFixture): Case => ({
  checks: [EXCHANGE_ACCESS, EXCHANGE_REVOKED],
  async run(ctx) {
    const plan = f.plans.exchange;
    const pods = Object.values(EXCHANGE_PODS);
    f.kubeletLinesOnFailure(
      ctx,
      pods.map((p) => p.name),
    );
    const prediction = predictExchangeAccess(f.predictor, plan);
    const runs = await Promise.all(pods.map((p) => f.runPod(p, exchangeImage(plan, p.team))));
    await deletePod(f.env, EXCHANGE_PODS.other.name, f.namespace);
    const invocations = await f.invocations(plan);
    const tokenHashes = new Map(
      pods.map((p) => [
        p.name,
        podInvocations(invocations, p.name)
          .map((i) => i.tokenSha256!)
          .filter(Boolean),
      ]),
    );
    const validationsOf = (pod: string) =>
      f.exchange.validations.filter((v) => tokenHashes.get(pod)?.includes(v.tokenSha256));
    const observed = Object.fromEntries(
      pods.map((p, i): [string, ExchangeView] => {
        const validations = validationsOf(p.name);
        return [
          exchangePodKey(plan, p),
          {
            invoked: podInvocations(invocations, p.name).length > 0,
            tokenValidated: validations.length > 0 && validations.every((v) => v.ok),
            pull: runs[i]!.observed,
          },
        ];
      }),
    );
    const tokenRequests = f.exchangeRegistry
      .tokenServer!.requests.filter((r) => r.account === EXCHANGE_USERNAME)
      .map((r) => ({ method: r.method, scopes: r.scopes, status: r.status, granted: r.granted }));
    const access = judge(EXCHANGE_ACCESS, {
      prediction,
      observed,
      show: showExchange,
      evidence: [
        ...runs.map(f.eventsEvidence),
        f.invocationEvidence(`invocations of ${plan.name}`, invocations),
        {
          kind: 'data',
          label:
            "the token server's validations of these pods' tokens (offline: JWKS signature, iss, aud, exp; online: TokenReview)",
          data: Object.fromEntries(pods.map((p) => [p.name, validationsOf(p.name).map(validationSummary)])),
        },
        {
          kind: 'data',
          label: 'token requests with the exchange user (scopes asked, access granted)',
          data: tokenRequests,
        },
      ],
    });
    return [access, await revocation(f, tokenHashes, ctx.clock)];
  },
});

/** The tokens xa-own and xc-own got, validated before and after their pod / SA is deleted. */
async function revocation(f: SuiteFixture, tokenHashes: Map<string, string[]>, clock: Clock): Promise<CheckResult> {
  const { own, teamC } = EXCHANGE_PODS;
  const ownToken = await f.capturedToken(tokenHashes.get(own.name)?.[0]);
  const teamCToken = await f.capturedToken(tokenHashes.get(teamC.name)?.[0]);
  if (!ownToken || !teamCToken) {
    const missing = !ownToken ? own.name : teamC.name;
    return harnessFailed(EXCHANGE_REVOKED, `no captured token for ${missing} (the plugin was not invoked with one)`);
  }
  const expired = (jwt: string) => (decodeJwt(jwt).exp ?? 0) * 1000 < clock.now();
  const prediction = predictRevocation({ ownToken: expired(ownToken), teamCToken: expired(teamCToken) });
  const before = await f.exchange.validate(ownToken);
  // Grace period 0 removes the pod from the API at once (neither it nor the SA has finalizers): gone when the calls return.
  await deletePod(f.env, own.name, f.namespace);
  await deleteServiceAccount(f.env, teamC.serviceAccount, f.namespace);
  // The API server reads pods and SAs through informers: allow it a moment to see the deletions.
  const settled = async (jwt: string): Promise<Validation> => {
    let last: Validation | undefined;
    const refused = await poll(
      async () => {
        last = await f.exchange.validate(jwt);
        return last.online?.ok ? undefined : last;
      },
      { timeoutMs: REVOCATION_SETTLE_MS, intervalMs: 1000, clock },
    );
    return refused ?? last!;
  };
  const [afterPod, afterServiceAccount] = await Promise.all([settled(ownToken), settled(teamCToken)]);
  const validations = {
    [REVOCATION_STEPS.podExists]: before,
    [REVOCATION_STEPS.podDeleted]: afterPod,
    [REVOCATION_STEPS.serviceAccountDeleted]: afterServiceAccount,
  };
  const reviewReasons = [afterPod.online?.reason, afterServiceAccount.online?.reason].filter(Boolean).join(' / ');
  return judge(EXCHANGE_REVOKED, {
    prediction,
    observed: Object.fromEntries(Object.entries(validations).map(([step, v]) => [step, verdictOf(v)])),
    show: showRevocation,
    actor: 'the API server',
    note: reviewReasons && `TokenReview said: ${reviewReasons}`,
    evidence: [
      {
        kind: 'data',
        label: "offline and online verdicts (the exchange's validations)",
        data: Object.fromEntries(
          Object.entries(validations).map(([step, v]) => [step, { offline: v.offline, online: v.online }]),
        ),
      },
    ],
  });
}
