// The non-SA cases: a pull through the plugin, the plugin's answer, the
// kubelet's cache of that answer, and an image no provider matches.
import { ANSWER, CACHE, PULL, UNMATCHED } from './checks.ts';
import { HOSTS, IMAGES, PROVIDER } from './plan.ts';
import {
  answerAgrees,
  CACHE_LABELS,
  predictAnswer,
  predictCache,
  predictPull,
  predictUnmatched,
  type RecordedAnswer,
} from './predict.ts';
import { execsIn, pullShown, showAws, type Session } from './session.ts';
import { caseOf, judge, kubeletEvidence, parseGoDuration, type Case } from '../../src/run/kit.ts';

export function pullCases(s: Session): Case[] {
  const env = s.run.environment;
  const config = s.lab.config;
  return [
    caseOf(PULL, async (ctx) => {
      ctx.onFailure(() => kubeletEvidence(env, [PROVIDER.static, HOSTS.static, 'credential provider']));
      const prediction = predictPull(config, IMAGES.app);
      const first = (s.first = await s.pod('pull', IMAGES.app.ref));
      return judge(PULL, {
        prediction,
        observed: {
          invoked: [...new Set(first.execs.map((i) => i.provider))],
          ecr: first.aws.map(showAws),
          pull: pullShown(first.run),
        },
        show: (v) => `exec'd ${v.invoked.join(', ') || 'nothing'}; ${v.ecr.join(', ') || 'no AWS call'}; ${v.pull}`,
        evidence: s.windowEvidence([first]),
      });
    }),

    caseOf(ANSWER, async () => {
      const exec = s.first?.execs.find((i) => i.provider === PROVIDER.static);
      const ecrCall = s.first?.aws.find((r) => r.service === 'ecr' && r.status === 200);
      if (!exec?.response || !ecrCall?.ecr || exec.endMs === undefined) {
        throw new Error(`no recorded answer or ECR token from the first pull (see ${PULL.id})`);
      }
      const written = exec.response.cacheDuration;
      // An observation: text that is no Go duration reads as none (and disagrees), it does not break the case.
      const cacheDurationMs = written === undefined ? undefined : parseGoDuration(written);
      const answer: RecordedAnswer = {
        cacheKeyType: exec.response.cacheKeyType ?? '',
        ...(cacheDurationMs !== undefined ? { cacheDurationMs } : {}),
        ...(written ? { cacheDuration: written } : {}),
      };
      s.answer = answer;
      const prediction = predictAnswer(ecrCall.ecr, { startMs: exec.startMs, endMs: exec.endMs });
      const observed = {
        cacheKeyType: answer.cacheKeyType,
        cacheDurationS: [Math.round((cacheDurationMs ?? NaN) / 1000)],
      };
      const showDuration = (seconds: number[]) =>
        seconds.length === 1 ? `${seconds[0]}s (${written ?? 'absent'})` : `${seconds.join('–')}s`;
      return judge(ANSWER, {
        prediction,
        observed,
        actor: 'ecr-credential-provider',
        agree: answerAgrees,
        show: (v) => `cacheKeyType ${v.cacheKeyType}, cacheDuration ${showDuration(v.cacheDurationS)}`,
        evidence: [
          {
            kind: 'data',
            label: "the plugin's answer (password reduced to a hash) and the token it came from",
            data: { answer: exec.response, ecrAuthorizationData: ecrCall.ecr },
          },
        ],
      });
    }),

    caseOf(CACHE, async (ctx) => {
      ctx.onFailure(() => kubeletEvidence(env, [PROVIDER.static, 'credential provider', 'Failed to pull']));
      const { first, answer } = s;
      if (!answer || !first) throw new Error(`no recorded answer from the first pull (see ${ANSWER.id})`);
      const t0 = first.execs[0]?.endMs ?? first.doneAt;
      const prediction = predictCache(config.providers[0]!, answer, [IMAGES.app, IMAGES.other, IMAGES.otherAccount]);
      const sameRegistry = await s.pod('cache-same-registry', IMAGES.other.ref);
      const otherRegistry = await s.pod('cache-other-registry', IMAGES.otherAccount.ref);
      const label = CACHE_LABELS(IMAGES.app, IMAGES.other, IMAGES.otherAccount);
      const observed = [
        { pull: label.first, execs: execsIn(first, PROVIDER.static), result: pullShown(first.run) },
        {
          pull: label.sameRegistry,
          execs: execsIn(sameRegistry, PROVIDER.static),
          result: pullShown(sameRegistry.run),
        },
        {
          pull: label.otherRegistry,
          execs: execsIn(otherRegistry, PROVIDER.static),
          result: pullShown(otherRegistry.run),
        },
      ];
      return judge(CACHE, {
        prediction,
        observed,
        show: (v) => v.map((x) => `${x.pull}: ${x.execs === 0 ? 'cached' : `${x.execs} exec`}, ${x.result}`).join('; '),
        evidence: [
          { kind: 'data', label: 'first exec answered at', data: new Date(t0).toISOString() },
          ...s.windowEvidence([first, sameRegistry, otherRegistry]),
        ],
      });
    }),

    caseOf(UNMATCHED, async () => {
      const prediction = predictUnmatched(config, IMAGES.public);
      const w = await s.pod('unmatched', IMAGES.public.ref);
      return judge(UNMATCHED, {
        prediction,
        observed: {
          invoked: [...new Set(w.execs.map((i) => i.provider))],
          awsRequests: w.aws.length,
          pull: pullShown(w.run),
        },
        show: (v) => `exec'd ${v.invoked.join(', ') || 'nothing'}, ${v.awsRequests} AWS request(s), ${v.pull}`,
        evidence: s.windowEvidence([w]),
      });
    }),
  ];
}
