// The vendor-oci cases: each real client through generate-token with the
// tenancy's key; two kubectl calls in one home (no cache, the claimed
// expiry); a key the tenancy does not hold; a key_file that is not there; and
// a v1 kubeconfig user. Each predicts from predict.ts before the client runs.
import {
  caseOf,
  clientNotRun,
  judge,
  answerOf,
  type Case,
  type ClientName,
  type ProbeAvailability,
} from '../../src/run/kit.ts';
import { EXEC_INFO_V1, FRESH, LOGIN, MISSING_KEY, UNREGISTERED_KEY } from './checks.ts';
import { CLIENT_STATUS, EXPIRY_SLACK_MS, V1, WHOAMI_STATUS, type Client, type Profile } from './plan.ts';
import {
  execInfoProblem,
  expiryAsModel,
  predictFresh,
  predictLogin,
  showFresh,
  showLogin,
  tokensFollowSeconds,
} from './predict.ts';
import { callAs, callEvidence, execSeconds, homeFor, signedTokens, viewOf, type Session } from './session.ts';

const ACTOR = (client: string) =>
  `${client} → oci ce cluster generate-token → kube-apiserver (token webhook → Container Engine)`;

export function loginCase(s: Session, client: Client, probe: ProbeAvailability | undefined): Case {
  const check = LOGIN[client];
  return caseOf(check, async (ctx) => {
    const unavailable = clientNotRun(check, client as ClientName, probe, s.run.ci);
    if (unavailable) return unavailable;
    const kubectl = client === 'kubectl';
    const prediction = predictLogin(
      'registered',
      { user: s.lab.identity.user },
      kubectl ? WHOAMI_STATUS : CLIENT_STATUS,
      {
        withUsername: kubectl,
      },
    );
    const home = await homeFor(s, client, 'registered');
    const call = await callAs(s, ctx, kubectl ? 'kubectl' : probe!.probe, home);
    return judge(check, {
      prediction,
      observed: viewOf(call, kubectl),
      show: showLogin,
      evidence: callEvidence([call]),
      actor: ACTOR(`${client}${probe?.availability.ok ? ` (${probe.availability.version})` : ''}`),
      startedAt: ctx.startedAt,
      note: `oci ran ${execSeconds(call)} per exec${call.error ? `; the client said: ${call.error}` : ''}`,
    });
  });
}

/** A profile the tenancy should refuse (or the SDK cannot use), through kubectl. */
export function refusedCase(s: Session, profile: Exclude<Profile, 'registered'>): Case {
  const check = profile === 'unregistered' ? UNREGISTERED_KEY : MISSING_KEY;
  return caseOf(check, async (ctx) => {
    const prediction = predictLogin(profile, { user: s.lab.identity.user }, WHOAMI_STATUS, { withUsername: true });
    const home = await homeFor(s, profile, profile);
    const call = await callAs(s, ctx, 'kubectl', home);
    const observed = viewOf(call, true);
    return judge(check, {
      prediction,
      observed,
      show: showLogin,
      evidence: callEvidence([call]),
      actor: ACTOR('kubectl'),
      startedAt: ctx.startedAt,
      note: call.error ? `kubectl said: ${call.error}` : undefined,
    });
  });
}

export function freshCase(s: Session): Case {
  return caseOf(FRESH, async (ctx) => {
    const prediction = predictFresh(2);
    const home = await homeFor(s, 'fresh', 'registered');
    const calls = [await callAs(s, ctx, 'kubectl', home), await callAs(s, ctx, 'kubectl', home)];
    const runs = calls.flatMap((c) => c.runs);
    const ok = calls.every((c) => c.status === WHOAMI_STATUS);
    return judge(FRESH, {
      prediction,
      observed: {
        runsPerCall: calls.map((c) => c.runs.length),
        tokenPerSigningSecond: tokensFollowSeconds(signedTokens(runs)),
        expiryAsModel: runs.every((r) => expiryAsModel(r.startMs, answerOf(r).expirationTimestamp, EXPIRY_SLACK_MS)),
      },
      show: showFresh,
      evidence: callEvidence(calls),
      actor: ACTOR('kubectl'),
      startedAt: ctx.startedAt,
      invalidBecause: ok
        ? undefined
        : `the calls were not both accepted (${calls.map((c) => c.status ?? c.error).join(', ')})`,
      note: `oci ran ${calls.map(execSeconds).join(', ')} per exec`,
    });
  });
}

export function execInfoCase(s: Session): Case {
  return caseOf(EXEC_INFO_V1, async (ctx) => {
    const prediction = predictLogin('registered', { user: s.lab.identity.user }, WHOAMI_STATUS, {
      withUsername: true,
      asked: V1,
    });
    const home = await homeFor(s, 'v1', 'registered');
    const call = await callAs(s, ctx, 'kubectl', home, V1);
    const observed = viewOf(call, true);
    return judge(EXEC_INFO_V1, {
      prediction,
      observed,
      show: showLogin,
      evidence: callEvidence([call]),
      actor: ACTOR('kubectl (a v1 user)'),
      startedAt: ctx.startedAt,
      problems: execInfoProblem(observed),
      note: call.error ? `kubectl said: ${call.error}` : undefined,
    });
  });
}
