// The vendor-acr cases, in order: the static service principal (pull, then the
// kubelet's cache of its answer), the empty "*.azurecr.*" entry, a non-ACR image,
// managed identity with the token exchange, and KEP-4412 mode without managed identity.
import { EMPTY_ENTRY, MI_EXCHANGE, NON_ACR, REGISTRY_CACHE, SP_PULL } from './checks.ts';
import { offeredFrom } from './offered.ts';
import { PROVIDER, type PlannedImage } from './plan.ts';
import {
  answerLine,
  predictAcrPull,
  predictNonAcr,
  predictOffered,
  predictRegistryCache,
  type AnswerView,
  type PullView,
} from './predict.ts';
import { saCases } from './sa-cases.ts';
import { execsIn, pullShown, showAzure, type Session, type Window } from './session.ts';
import { caseOf, judge, kubeletEvidence, pullAttemptsSince, type Case } from '../../src/run/kit.ts';

const showAnswer = (v: AnswerView | undefined) =>
  v
    ? `${v.cacheKeyType} ${v.cacheDuration} {${Object.entries(v.auth)
        .map(([k, e]) => `${k}: ${e}`)
        .join(', ')}}`
    : 'no answer';

export const showPull = (v: PullView): string =>
  `exec'd ${v.invoked.join(', ') || 'nothing'}; answer ${showAnswer(v.answer)}; ${v.azure.join(', ') || 'no Azure call'}; ${v.pull}`;

export async function acrCases(s: Session): Promise<Case[]> {
  const env = s.run.environment;
  const { config, json } = s.lab;
  const img = s.images;
  const accepts = (username: string, password: string) =>
    (username === s.lab.names.clientId && password === 'client secret') || password === 'refresh token';
  const observedPull = (w: Window, provider: string): PullView => ({
    invoked: [...new Set(w.execs.map((i) => i.provider))],
    answer: s.answerOf(w, provider) ?? { cacheKeyType: '(no answer)', cacheDuration: '', auth: {} },
    azure: w.azure.map(showAzure),
    pull: pullShown(w.run),
  });
  const pullCase = (
    check: typeof SP_PULL,
    label: string,
    image: PlannedImage,
    provider: string,
    keep?: (w: Window) => void,
  ) =>
    caseOf(check, async (ctx) => {
      ctx.onFailure(() => kubeletEvidence(env, [provider, image.request.split('/')[0]!, 'credential provider']));
      const prediction = predictAcrPull(config, image, json, accepts);
      const w = await s.pod(label, image.ref);
      keep?.(w);
      return judge(check, {
        prediction,
        observed: observedPull(w, provider),
        show: showPull,
        evidence: s.windowEvidence([w]),
      });
    });
  let first: Window | undefined;

  return [
    pullCase(SP_PULL, 'sp', img.sp, PROVIDER.static, (w) => (first = w)),

    caseOf(REGISTRY_CACHE, async () => {
      if (!first) throw new Error(`no first pull to cache (see ${SP_PULL.id})`);
      const provider = config.providers.find((p) => p.name === PROVIDER.static)!;
      const prediction = predictRegistryCache(provider, [img.sp, img.spOther], json[PROVIDER.static]!);
      const w = await s.pod('cache', img.spOther.ref);
      const observed = [
        { pull: img.sp.request, execs: execsIn(first, PROVIDER.static), result: pullShown(first.run) },
        { pull: img.spOther.request, execs: execsIn(w, PROVIDER.static), result: pullShown(w.run) },
      ];
      return judge(REGISTRY_CACHE, {
        prediction,
        observed,
        show: (v) => v.map((x) => `${x.pull}: ${x.execs === 0 ? 'cached' : `${x.execs} exec`}, ${x.result}`).join('; '),
        evidence: s.windowEvidence([first, w]),
      });
    }),

    caseOf(EMPTY_ENTRY, async (ctx) => {
      ctx.onFailure(() => kubeletEvidence(env, [img.cn.request, 'Failed to pull']));
      const prediction = predictOffered(config, img.cn, json);
      const since = await pullAttemptsSince(s.lab.other);
      const w = await s.pod('empty-entry', img.cn.ref);
      const trail = await since.read('team/app');
      return judge(EMPTY_ENTRY, {
        prediction,
        observed: { offered: offeredFrom(trail), pull: pullShown(w.run) },
        show: (v) => `offered ${v.offered.join(' → ') || 'nothing'}; ${v.pull}`,
        note: `the plugin answered ${showAnswer(s.answerOf(w, PROVIDER.static))}`,
        evidence: [
          { kind: 'data', label: "the registry's log of this pull (containerd's requests)", data: trail },
          ...s.windowEvidence([w]),
        ],
      });
    }),

    caseOf(NON_ACR, async () => {
      const provider = config.providers.find((p) => p.name === PROVIDER.static)!;
      const prediction = predictNonAcr(provider, img.mcr, json[PROVIDER.static]!);
      const windows = [await s.pod('non-acr', img.mcr.ref), await s.pod('non-acr', img.mcr.ref)];
      const observed = windows.map((w, i) => {
        const answer = s.answerOf(w, PROVIDER.static);
        return {
          pull: i === 0 ? 'first pull' : 'second pull',
          execs: execsIn(w, PROVIDER.static),
          answer: answer ? answerLine(answer) : 'cached',
          result: pullShown(w.run),
        };
      });
      return judge(NON_ACR, {
        prediction,
        observed,
        show: (v) => v.map((x) => `${x.pull}: ${x.execs} exec (${x.answer}), ${x.result}`).join('; '),
        evidence: s.windowEvidence(windows),
      });
    }),

    pullCase(MI_EXCHANGE, 'mi', img.mi, PROVIDER.mi),

    ...saCases(s),
  ];
}
