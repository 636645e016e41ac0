// Matching on the real kubelet: every provider of a CredentialProviderConfig
// is replaced by a recording fake with the same name and matchImages, each
// image is pushed to one local registry that stands in for the image's host,
// and a pod pulls each image. Per image, credprov's matching oracle predicts
// which providers the kubelet execs (and in what order, per the version
// table) and whether the pull works; the kubelet's own execs and the pull
// result are then compared. The `matching` suite and `explain --live` are
// both built from this.
import type { CredentialProviderConfig } from '../api/credentialprovider/types.ts';
import { normalizeImage, type NormalizedImage } from '../matching/image.ts';
import { providersForImage } from '../matching/providers.ts';
import { matchPattern } from '../matching/url.ts';
import type { Check, CheckResult, Evidence } from '../report/model.ts';
import {
  answer,
  kubeletEvidence,
  prepareFleet,
  runPod,
  startLabRegistry,
  type LabRegistry,
  type PullResult,
} from './lab.ts';
import { judge } from './prediction.ts';
import type { PreparedSuite, Suite, SuiteRun, SuiteSetup } from './suite.ts';

/** How a fake answers for the images it is asked about. */
export interface FakeAnswer {
  /** Which password it hands out: the registry's (`right`) or one the registry refuses (`wrong`). */
  credentials: 'right' | 'wrong';
  /** The auth key; default `{registry}` (the request image's host[:port]). */
  authKey?: string;
}

export interface LiveImage {
  /** As a pod names it: `nginx`, `a.reg.test:5000/x:v1`; `@digest` takes the pushed image's digest. */
  ref: string;
  /** Append `@<digest of the pushed image>` (the digest case). */
  byDigest?: boolean;
}

export interface LiveCase {
  check: Check;
  images: LiveImage[];
}

export interface ProviderVerdict {
  name: string;
  predicted: { invoked: boolean; order: number | null };
  live: { invoked: boolean; order: number | null };
}

export interface ImageVerdict {
  image: string;
  /** The request image: the repository without tag or digest. */
  requestImage: string;
  providers: ProviderVerdict[];
  /** `failure` is the registry's 401; any other failure reads `failure (<kubelet's message>)`. */
  pull: { predicted: PullResult; live: PullResult | `failure (${string})` };
  /** Why the oracle predicted what it did, one line per provider. */
  reasons: string[];
  agree: boolean;
}

export interface LiveMatchingOptions {
  name: string;
  summary: string;
  config: CredentialProviderConfig;
  cases: LiveCase[];
  /** Per provider, how its fake answers; default right credentials under `{registry}`. */
  answers?: Record<string, FakeAnswer>;
  /** Receives every image's verdict (explain --live prints them). */
  onVerdicts?: (v: ImageVerdict[]) => void;
}

const PREFIX = 'live';

export function liveMatchingSuite(o: LiveMatchingOptions): Suite {
  return {
    name: o.name,
    summary: o.summary,
    checks: o.cases.map((c) => c.check),
    async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
      const lab = await ctx.own(startLabRegistry(ctx, o.name));
      const digest = await lab.digest();
      const images = o.cases.flatMap((c) => c.images).map((i) => (i.byDigest ? `${i.ref}@${digest}` : i.ref));
      const normalized = new Map(images.map((ref) => [ref, normalizeImage(ref)] as const));
      // An untagged name pulls :latest; a digest-only name needs the manifest under any tag.
      const pushes = new Set([...normalized.values()].map((n) => `${n.path}:${n.tag ?? (n.digest ? 'v1' : 'latest')}`));
      for (const p of pushes) await lab.push(p.slice(0, p.lastIndexOf(':')), p.slice(p.lastIndexOf(':') + 1));
      const repositories = [...new Set([...normalized.values()].map((n) => n.repository))];
      const fleet = await prepareFleet(
        ctx,
        o.config.providers.map((p) => {
          const a = o.answers?.[p.name] ?? { credentials: 'right' };
          const password = a.credentials === 'right' ? lab.user.password : lab.wrongPassword;
          return {
            name: p.name,
            matchImages: p.matchImages ?? [],
            apiVersion: p.apiVersion,
            // 0s and Image keys: every image is asked afresh, so each pull shows its own execs.
            defaultCacheDuration: '0s',
            scenario: answer(
              repositories,
              { [a.authKey ?? '{registry}']: { username: lab.user.username, password } },
              { cacheKeyType: 'Image', cacheDuration: '0s' },
            ),
          };
        }),
      );
      ctx.defer(() => fleet.redactArtifacts());
      return {
        needs: ['installPlugins', 'hostRegistries', 'restartKubelet'],
        spec: fleet.spec,
        run: (run) => runLive(run, o, lab, fleet, normalized),
      };
    },
  };
}

/** What the oracle says for one image: providers in invocation order, and whether the pull can work. */
export function predictImage(
  cfg: CredentialProviderConfig,
  image: NormalizedImage,
  kubeVersion: string,
  answers: Record<string, FakeAnswer>,
): {
  providers: Array<{ name: string; invoked: boolean; order: number | null }>;
  pull: PullResult;
  reasons: string[];
  because: string;
} {
  const verdict = providersForImage(cfg, image.input, kubeVersion);
  const order = verdict.invoked;
  const reasons = verdict.providers.map(
    (p) =>
      `${p.name}: ${p.invoked ? `invoked (${p.patterns.find((x) => x.result.match)?.pattern})` : p.patterns.map((x) => `${x.pattern}: ${x.result.reason}`).join('; ') || 'no matchImages'}`,
  );
  // The kubelet tries every credential whose auth key matches the image, in order, until a pull works;
  // with none it pulls anonymously, which this registry refuses.
  const usable = order.filter((name) => {
    const a = answers[name] ?? { credentials: 'right' };
    const key = (a.authKey ?? '{registry}').replace('{registry}', image.registry);
    return matchPattern(key, image.repository).match;
  });
  const works = usable.some((name) => (answers[name]?.credentials ?? 'right') === 'right');
  const pullWhy =
    usable.length === 0
      ? order.length === 0
        ? 'no provider matches, so an anonymous pull, which the registry refuses'
        : 'no returned auth key matches the image, so the kubelet pulls anonymously and the registry refuses'
      : `credentials of ${usable.join(', ')} apply; ${works ? 'one is right and the kubelet tries each until a pull works' : 'none is right'}`;
  reasons.push(`pull: ${pullWhy}`);
  const matched = verdict.providers
    .filter((p) => p.invoked)
    .map((p) => `${p.name} (${p.patterns.find((x) => x.result.match)?.pattern})`);
  const because = `${image.repository}: ${matched.length ? `matches ${matched.join(', ')}${matched.length > 1 ? ` in ${verdict.order} order` : ''}` : 'matches no provider'}; ${pullWhy}`;
  return {
    because,
    providers: cfg.providers.map((p) => ({
      name: p.name,
      invoked: order.includes(p.name),
      order: order.includes(p.name) ? order.indexOf(p.name) : null,
    })),
    pull: works ? 'success' : 'failure',
    reasons,
  };
}

async function runLive(
  run: SuiteRun,
  o: LiveMatchingOptions,
  lab: LabRegistry,
  fleet: Awaited<ReturnType<typeof prepareFleet>>,
  normalized: Map<string, NormalizedImage>,
): Promise<CheckResult[]> {
  const env = run.environment;
  const answers = o.answers ?? {};
  const startedAt = new Date();
  // The prediction is stated before any pod exists.
  const predicted = new Map(
    [...normalized].map(
      ([ref, n]) => [ref, predictImage(o.config, n, env.kubeletVersion ?? env.kubeVersion, answers)] as const,
    ),
  );
  await lab.serveAs(run, lab.registry.host);
  for (const host of new Set([...normalized.values()].map((n) => n.registry)))
    if (host !== lab.registry.host) await lab.serveAs(run, host);
  const pods = await Promise.all(
    [...normalized.keys()].map((ref, i) =>
      runPod(env, {
        name: `${PREFIX}-${o.name}-${i}-${Date.now().toString(36)}`.slice(0, 63),
        image: ref,
        pullPolicy: 'Always',
      }),
    ),
  );
  const invocations = await fleet.invocations();
  const verdicts: ImageVerdict[] = [...normalized].map(([ref, n], i) => {
    const mine = invocations.filter((r) => r.image === n.repository).sort((a, b) => a.time.localeCompare(b.time));
    const liveOrder = [...new Set(mine.map((r) => r.provider))];
    const p = predicted.get(ref)!;
    const providers = p.providers.map((pp) => ({
      name: pp.name,
      predicted: { invoked: pp.invoked, order: pp.order },
      live: {
        invoked: liveOrder.includes(pp.name),
        order: liveOrder.includes(pp.name) ? liveOrder.indexOf(pp.name) : null,
      },
    }));
    const pod = pods[i]!;
    // Every predicted failure here is the registry refusing an anonymous or wrong login; any other failure disagrees.
    const live: ImageVerdict['pull']['live'] =
      pod.pull === 'failure' && pod.failure !== 'unauthorized' ? `failure (${pod.failure})` : pod.pull;
    const pull = { predicted: p.pull, live };
    const agree =
      providers.every((x) => x.predicted.invoked === x.live.invoked && x.predicted.order === x.live.order) &&
      pull.predicted === pull.live;
    return { image: ref, requestImage: n.repository, providers, pull, reasons: p.reasons, agree };
  });
  o.onVerdicts?.(verdicts);
  const results: CheckResult[] = [];
  for (const c of o.cases) {
    const refs = c.images.map((i) => [...normalized.keys()].find((k) => k === i.ref || k.startsWith(`${i.ref}@`))!);
    const mine = verdicts.filter((v) => refs.includes(v.image));
    const evidence: Evidence[] = [
      { kind: 'data', label: 'per image: each provider predicted vs live, and the pull', data: mine },
      {
        kind: 'invocation',
        label: `plugin invocations (${fleet.logFile})`,
        data: invocations
          .filter((r) => mine.some((v) => v.requestImage === r.image))
          .map((r) => ({
            provider: r.provider,
            image: r.image,
            time: r.time,
            request: r.request,
            exitCode: r.response.exitCode,
          })),
      },
      ...pods.filter((p, i) => refs.includes([...normalized.keys()][i]!)).flatMap((p) => p.evidence),
    ];
    const result = judge(c.check, {
      prediction: {
        value: mine.map(summaryOf('predicted')),
        model: `matching oracle (src/matching) and version table (kubelet ${env.kubeletVersion ?? env.kubeVersion})`,
        because: mine.map((v) => predicted.get(v.image)!.because).join(' | '),
      },
      observed: mine.map(summaryOf('live')),
      show: (v) => v.join('; '),
      evidence: mine.every((v) => v.agree)
        ? evidence
        : [
            ...evidence,
            ...(await kubeletEvidence(env, [
              'credential provider',
              'credentialprovider',
              ...mine.map((v) => v.requestImage),
            ])),
          ],
      startedAt,
    });
    results.push(result);
  }
  return results;
}

/** `<image>: invoked a → b, pull success` for one side. */
function summaryOf(side: 'predicted' | 'live'): (v: ImageVerdict) => string {
  return (v) => {
    const invoked = v.providers
      .filter((p) => p[side].invoked)
      .sort((a, b) => (a[side].order ?? 0) - (b[side].order ?? 0))
      .map((p) => p.name);
    return `${v.image}: ${invoked.length ? `invoked ${invoked.join(' → ')}` : 'no provider invoked'}, pull ${v.pull[side]}`;
  };
}
