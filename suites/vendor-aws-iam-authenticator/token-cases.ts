// The token cases: predict kube-apiserver's answer for the token a user sends,
// run kubectl, compare the status, who refused and why (or the user, for a 200).
import { describeToken, showVerdict } from '../../src/model/aws-iam-authenticator.ts';
import { observedVerdict } from './observe.ts';
import { PROBE_PATH, USERS, type TokenCasePlan } from './plan.ts';
import { agreeVerdict, expectedToken, predictVerdict } from './predict.ts';
import { attemptEvidence, type Session } from './session.ts';
import { caseOf, judge, sleepUntil, tokenOf, type Case } from '../../src/run/kit.ts';

/** A margin past the second boundary, so the plugin surely signs in the new second. */
const PAST_SECOND_MS = 20;

export function tokenCase(s: Session, plan: TokenCasePlan): Case {
  return caseOf(plan.check, async (ctx) => {
    const now = ctx.clock.now();
    const expected = expectedToken(s.lab, USERS[plan.user], now, s.crafted);
    const prediction = predictVerdict(expected, s.lab.setup(), now, plan.stsSkewMs);
    const a = await s.attempt(plan.user, ['get', '--raw', PROBE_PATH]);
    const used = a.runs.length ? tokenOf(a.runs[0]!) : expected;
    const whoami = a.status === 200 ? await s.attempt(plan.user, ['auth', 'whoami', '-o', 'json']) : undefined;
    return judge(plan.check, {
      prediction,
      observed: observedVerdict(a, whoami),
      actor: 'kube-apiserver with aws-iam-authenticator as its webhook',
      agree: agreeVerdict,
      show: showVerdict,
      evidence: [
        ...attemptEvidence(s.lab, plan.user, used, a, whoami),
        {
          kind: 'data',
          label: "the token predicted for (credprov's presigner, same keys, cluster id and time)",
          data: describeToken(expected),
        },
      ],
    });
  });
}

/**
 * IAM-STS-WINDOW-401 (and its awscli twin): a fresh token while STS's clock runs ahead. A presigned token is the same string for the
 * same key, cluster id and second, and kube-apiserver answers a token it accepted in the last 10 s from its
 * success cache, unreviewed: on a warm environment the plugin's token here could equal the crafted control token
 * (signed at the suite's start) and get 200 from the cache. A new second makes it a token the API server has
 * never seen, so STS is asked.
 */
export function stsWindowCase(s: Session, plan: TokenCasePlan & { stsSkewMs: number }): Case {
  const inner = tokenCase(s, plan);
  return {
    ...inner,
    async run(ctx) {
      await sleepUntil(Math.floor(ctx.clock.now() / 1000) * 1000 + 1000 + PAST_SECOND_MS, ctx.clock);
      s.lab.setStsClockSkew(plan.stsSkewMs);
      ctx.defer(() => s.lab.setStsClockSkew(0));
      return inner.run(ctx);
    },
  };
}
