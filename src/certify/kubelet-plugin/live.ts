// certify kubelet-plugin --live: after the hermetic checks, the plugin and its
// provider entry go into the local cluster's real kubelet (behind a recording
// wrapper: the plugin itself runs unmodified), and a pod pulls each --image,
// then the first image again, then an image outside matchImages. Before any
// pod exists, credprov predicts per pull whether the kubelet execs the plugin
// (matching oracle, and the cache model fed with the answers the plugin gave
// in the hermetic probes) and whether the pull works; then it compares, and
// reads the kubelet's plugin error counter before and after.
import { realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CredentialProvider, CredentialProviderConfig } from '../../api/credentialprovider/types.ts';
import type { PartialSpec } from '../../api/spec/defaults.ts';
import { kubeApi } from '../../cluster/api.ts';
import type { Environment } from '../../cluster/provider.ts';
import { parseGoDuration } from '../../core/duration.ts';
import type { Logger } from '../../core/logger.ts';
import type { Progress } from '../../core/progress.ts';
import type { Redactor } from '../../core/redact.ts';
import { normalizeImage } from '../../matching/image.ts';
import { providersForImage } from '../../matching/providers.ts';
import { CredentialCacheModel, type PluginAnswer } from '../../model/credential-cache.ts';
import {
  installRecordingWrapper,
  readWrappedInvocations,
  redactWrapperLog,
  type WrappedInvocation,
} from '../../plugin/recording-wrapper.ts';
import { skipped } from '../../report/checks.ts';
import type { Check, CheckResult, Evidence } from '../../report/model.ts';
import { kubeletEvidence, runPod, type PodRun } from '../../run/lab.ts';
import { judge } from '../../run/prediction.ts';
import { assertKubeletLoadedConfig } from '../../run/config-loaded.ts';
import { runSuites } from '../../run/runner.ts';
import type { PreparedSuite, Suite, SuiteRun, SuiteSetup } from '../../run/suite.ts';
import { behaviourFor } from '../../versions/table.ts';
import { trustForContainerd } from '../../../registry/index.ts';
import { unservableImage } from './images.ts';
import { sleep } from '../../core/time.ts';
import { KP_LIVE_UPGRADE_RENAME, upgradeByRename } from './upgrade.ts';

const LIVE_SOURCE =
  'credprov certify --live: the real kubelet v1.37.1 with the plugin in its --image-credential-provider-bin-dir';

export const KP_LIVE_INVOKED: Check = {
  id: 'KP-LIVE-INVOKED',
  level: 'MUST',
  title:
    'the real kubelet execs the plugin for the images its matchImages cover (unless its cache answers) and not for an image outside them',
  source: `KEP-2133: a provider is exec'd for images one of its matchImages matches; ${LIVE_SOURCE}`,
};
export const KP_LIVE_PULL: Check = {
  id: 'KP-LIVE-PULL',
  level: 'MUST',
  title: 'pods pull every --image with the credentials the plugin gave the kubelet',
  source: `KEP-2133: the kubelet hands the matching auth entries to the container runtime; ${LIVE_SOURCE}`,
};
export const KP_LIVE_CACHE: Check = {
  id: 'KP-LIVE-CACHE',
  level: 'MUST',
  title:
    "the kubelet caches the plugin's answers as they declare (cacheKeyType, cacheDuration): a pull under a live cache key execs nothing",
  source:
    "KEP-2133 cacheKeyType/cacheDuration; kubelet pkg/credentialprovider/plugin/plugin.go: getCachedCredentials before exec; credprov's cache model (src/model/credential-cache.ts)",
};
export const KP_LIVE_NO_ERRORS: Check = {
  id: 'KP-LIVE-NO-PLUGIN-ERRORS',
  level: 'MUST',
  title: "the kubelet's plugin error counter for this provider stays at zero",
  source:
    'kubelet metrics (pkg/credentialprovider/plugin/metrics.go): kubelet_credential_provider_plugin_errors(_total){plugin_name} counts failed and timed-out execs; the name per version from the version table (pluginErrorsMetric)',
};
export const KP_LIVE_CONFIG_LOADED: Check = {
  id: 'KP-LIVE-CONFIG-LOADED',
  level: 'MUST',
  title:
    'the kubelet loaded the provider config credprov wrote: kubelet_credential_provider_config_info{hash} equals the sha256 of its bytes (1.34+; skipped on older kubelets)',
  source:
    'k/k PR #133016: the kubelet publishes "sha256:<hex>" over the config it read (pkg/credentialprovider/plugin/config.go, metrics.go); the metric name per version from the version table (configInfoMetric)',
};
export const LIVE_CHECKS: Check[] = [
  KP_LIVE_CONFIG_LOADED,
  KP_LIVE_INVOKED,
  KP_LIVE_PULL,
  KP_LIVE_CACHE,
  KP_LIVE_NO_ERRORS,
  KP_LIVE_UPGRADE_RENAME,
];

export interface LiveOptions {
  plugin: string;
  provider: CredentialProvider;
  /** The user's --image references (with tags). */
  images: string[];
  /** Answers of the hermetic probes, by request image (repository): what the plugin says it wants cached. */
  answers: Record<string, PluginAnswer>;
  /** Image host → registry host[:port] containerd should fetch it from (hosts.toml server). */
  registryFor?: Record<string, string>;
  /** PEM CA file containerd should trust for those registries. */
  caFile?: string;
  plainHttp?: boolean;
}

export interface LiveRunOptions extends LiveOptions {
  baseSpec: PartialSpec;
  artifactsDir: string;
  redactor: Redactor;
  log: Logger;
  progress: Progress;
  processEnv: NodeJS.ProcessEnv;
}

/** Pull gap the prediction plans with; the model is replayed at the real times afterwards. */
const PLANNED_GAP_MS = 3000;
const POD_TIMEOUT_MS = 60_000;

export async function certifyLive(o: LiveRunOptions): Promise<{ checks: CheckResult[]; environment?: Environment }> {
  const { report, environment } = await runSuites([liveSuite(o)], {
    baseSpec: o.baseSpec,
    artifactsDir: o.artifactsDir,
    log: o.log,
    progress: o.progress,
    redactor: o.redactor,
    processEnv: o.processEnv,
    command: 'credprov certify kubelet-plugin --live',
  });
  return { checks: report.checks.map(({ suite: _suite, ...c }) => c), ...(environment ? { environment } : {}) };
}

interface Pull {
  label: string;
  ref: string;
  request: string;
  matched: boolean;
  /** Planned time (ms after the first pull). */
  atMs: number;
}

export function liveSuite(o: LiveOptions): Suite {
  return {
    name: 'certify-live',
    summary: `the plugin under the real kubelet: ${o.images.join(', ')}`,
    checks: LIVE_CHECKS,
    async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
      const logDir = join(ctx.artifactsDir, 'plugin-invocations');
      await rm(logDir, { recursive: true, force: true });
      const target = await realpath(o.plugin);
      const wrapper = await installRecordingWrapper({
        binDir: join(ctx.artifactsDir, 'bin'),
        name: o.provider.name,
        target,
        logDir,
      });
      const config: CredentialProviderConfig = {
        apiVersion: 'kubelet.config.k8s.io/v1',
        kind: 'CredentialProviderConfig',
        providers: [o.provider],
      };
      return {
        needs: ['installPlugins', 'hostRegistries'],
        spec: {
          credentialProvider: {
            plugins: { [o.provider.name]: wrapper },
            config: config as unknown as Record<string, unknown>,
          },
        },
        run: (run) => runLive(run, o, config, logDir, target),
        cleanup: async () => {
          await redactWrapperLog(logDir, (t) => ctx.redactor.text(t));
          await redactWrapperLog(`${logDir}-renamed`, (t) => ctx.redactor.text(t));
        },
      };
    },
  };
}

async function runLive(
  run: SuiteRun,
  o: LiveOptions,
  config: CredentialProviderConfig,
  logDir: string,
  target: string,
): Promise<CheckResult[]> {
  const env = run.environment;
  // First, before any pull: every other verdict is about this config.
  const loaded = await assertKubeletLoadedConfig(KP_LIVE_CONFIG_LOADED, env);
  if (o.provider.tokenAttributes) {
    const why =
      'the provider has tokenAttributes: a live run would need a service account with its annotations and an audience RBAC grant for the node, which certify --live does not set up (the vendor-ecr suite shows that path)';
    return [loaded, ...LIVE_CHECKS.filter((c) => c !== KP_LIVE_CONFIG_LOADED).map((c) => skipped(c, why))];
  }
  const kubeletVersion = env.kubeletVersion ?? env.kubeVersion;
  const startedAt = new Date();
  // Every pull, planned: each --image, the first again, then an image outside matchImages.
  const unservable = `${unservableImage(o.provider)}:v1`;
  const refs = [
    ...o.images.map((r) => ({ label: r, ref: r })),
    { label: `${o.images[0]} again`, ref: o.images[0]! },
    { label: `${unservable} (outside matchImages)`, ref: unservable },
  ];
  const pulls: Pull[] = refs.map((r, i) => ({
    ...r,
    request: normalizeImage(r.ref).repository,
    matched: providersForImage(config, r.ref, kubeletVersion).invoked.includes(o.provider.name),
    atMs: i * PLANNED_GAP_MS,
  }));
  const predict = (times: number[]) => {
    const model = new CredentialCacheModel(parseGoDuration(o.provider.defaultCacheDuration) ?? 0);
    return pulls.map((p, i) => {
      if (!p.matched) return { exec: false, why: `${p.request}: no matchImages entry matches (matching oracle)` };
      const a = o.answers[p.request];
      if (!a)
        return {
          exec: true,
          why: `${p.request}: matches; the plugin gave no usable answer in the hermetic probes, so nothing can be cached`,
        };
      const d = model.pull(p.request, times[i]!, a);
      return { exec: d.invoked, why: `${p.request}: ${d.reason}` };
    });
  };
  const predicted = predict(pulls.map((p) => p.atMs));

  // Route the images' hosts in the environment's containerd.
  const routed: string[] = [];
  const certs = env.containerd?.certsDir;
  for (const host of new Set(pulls.filter((p) => p.matched).map((p) => normalizeImage(p.ref).registry))) {
    const server = o.registryFor?.[host];
    if (!certs || (!server && !o.caFile && !o.plainHttp)) continue;
    routed.push(
      await trustForContainerd(certs, host, {
        ...(o.caFile ? { caCertPath: o.caFile } : {}),
        ...(o.plainHttp ? { plainHttp: true } : {}),
        ...(server ? { server } : {}),
      }),
    );
  }
  // The unmatched probe's host leads to a closed loopback port: its pull fails at once, and nothing leaves the machine.
  if (certs)
    routed.push(
      await trustForContainerd(certs, normalizeImage(unservable).registry, { plainHttp: true, server: '127.0.0.1:1' }),
    );
  const metric = behaviourFor(kubeletVersion).pluginErrorsMetric;
  const errorsBefore = await pluginErrors(env, metric, o.provider.name);
  const windows: Array<{ pull: Pull; run: PodRun; createdAt: number; doneAt: number; execs: WrappedInvocation[] }> = [];
  const tag = Date.now().toString(36);
  let errorsAfter = errorsBefore;
  let upgrade: CheckResult | undefined;
  try {
    let origin: number | undefined;
    for (const [i, p] of pulls.entries()) {
      if (origin !== undefined) {
        const wait = origin + p.atMs - Date.now();
        await sleep(wait);
      }
      const before = (await readWrappedInvocations(logDir)).length;
      const createdAt = Date.now();
      origin ??= createdAt;
      const r = await runPod(env, {
        name: `certify-live-${tag}-${i}`,
        image: p.ref,
        pullPolicy: 'Always',
        timeoutMs: POD_TIMEOUT_MS,
      });
      windows.push({
        pull: p,
        run: r,
        createdAt,
        doneAt: Date.now(),
        execs: (await readWrappedInvocations(logDir)).slice(before).filter((x) => x.provider === o.provider.name),
      });
    }
    // After the error counter is read, while the routes still stand: the upgrade's extra pull is judged on its own.
    errorsAfter = await pluginErrors(env, metric, o.provider.name);
    const first = windows[0]?.createdAt ?? Date.now();
    upgrade = await upgradeByRename({
      env,
      provider: o.provider.name,
      target,
      logDir,
      image: pulls[0]!.ref,
      podName: `certify-live-${tag}-renamed`,
      pulledBefore: windows[0]?.run.pull === 'success',
      timeoutMs: POD_TIMEOUT_MS,
      predictExec: () => {
        // The cache model replayed at the pods' real times, then this pull now.
        const model = new CredentialCacheModel(parseGoDuration(o.provider.defaultCacheDuration) ?? 0);
        for (const w of windows) {
          const a = o.answers[w.pull.request];
          if (w.pull.matched && a) model.pull(w.pull.request, w.createdAt - first, a);
        }
        const p = pulls[0]!;
        const a = o.answers[p.request];
        if (!p.matched) return { exec: false, why: `${p.request}: no matchImages entry matches` };
        if (!a) return { exec: true, why: `${p.request}: no usable answer in the hermetic probes, nothing cached` };
        const d = model.pull(p.request, Date.now() - first, a);
        return { exec: d.invoked, why: `${p.request}: ${d.reason}` };
      },
    });
  } finally {
    await Promise.all(routed.map((d) => rm(d, { recursive: true, force: true })));
  }
  const origin = windows[0]?.createdAt ?? Date.now();
  const execEvidence: Evidence = {
    kind: 'invocation',
    label: `plugin execs by the kubelet (recording wrapper, ${logDir})`,
    data: windows.map((w) => ({
      pull: w.pull.label,
      execs: w.execs.map((x) => ({
        image: x.request.image,
        startedAt: x.startedAt,
        durationMs: x.durationMs,
        exitCode: x.exitCode,
        answer: x.response,
        stderr: x.exitCode ? x.stderr.slice(-400) : undefined,
      })),
    })),
  };
  const podEvidence = windows.flatMap((w) => w.run.evidence);
  const failing = windows.some(
    (w) => w.execs.some((x) => x.exitCode !== 0) || (w.pull.matched && w.run.pull !== 'success'),
  );
  const kubelet = failing ? await kubeletEvidence(env, [o.provider.name, 'credential provider']) : [];
  const execOf = (w: (typeof windows)[number]) => (w.execs.length > 0 ? 'exec' : 'no exec');
  const results: CheckResult[] = [loaded];

  // Which pulls the cache model does not claim: first pulls of a key, and the unmatched image.
  const notCached = pulls.map((_, i) => i).filter((i) => !pulls[i]!.matched || predicted[i]!.exec);
  results.push(
    judge(KP_LIVE_INVOKED, {
      prediction: {
        value: notCached.map((i) => `${pulls[i]!.label}: ${predicted[i]!.exec ? 'exec' : 'no exec'}`),
        model: 'matching oracle (src/matching) + cache model',
        because: notCached.map((i) => predicted[i]!.why).join(' | '),
      },
      observed: notCached.map((i) => `${pulls[i]!.label}: ${execOf(windows[i]!)}`),
      show: (v) => v.join('; '),
      evidence: [execEvidence, ...kubelet],
      startedAt,
    }),
  );

  const matched = windows.filter((w) => w.pull.matched);
  results.push(
    judge(KP_LIVE_PULL, {
      prediction: {
        value: matched.map((w) => `${w.pull.ref}: pull success`),
        model: 'KEP-2133',
        because:
          "the plugin's credentials for each image (checked by the hermetic probes, and by KP-CREDENTIALS-OPEN-IMAGE with --verify-pull) reach the runtime",
      },
      observed: matched.map(
        (w) =>
          `${w.pull.ref}: ${w.run.pull === 'success' ? 'pull success' : `pull failure (${w.run.failure ?? 'unknown'})`}`,
      ),
      show: (v) => v.join('; '),
      evidence: [...podEvidence, execEvidence, ...kubelet],
      startedAt,
    }),
  );

  const cacheIdx = pulls.map((_, i) => i).filter((i) => pulls[i]!.matched);
  const answersShown = [...new Set(cacheIdx.map((i) => pulls[i]!.request))]
    .map(
      (r) =>
        `${r}: ${o.answers[r] ? `cacheKeyType ${o.answers[r]!.cacheKeyType}, cacheDuration ${o.answers[r]!.cacheDurationMs === undefined ? `absent (default ${o.provider.defaultCacheDuration})` : `${o.answers[r]!.cacheDurationMs! / 1000}s`}` : 'no answer'}`,
    )
    .join('; ');
  const cache = judge(KP_LIVE_CACHE, {
    prediction: {
      value: cacheIdx.map((i) => `${pulls[i]!.label}: ${predicted[i]!.exec ? 'exec' : 'cached'}`),
      model: "cache model (src/model/credential-cache.ts), fed with the hermetic probes' answers",
      because: `answers: ${answersShown}; planned ${PLANNED_GAP_MS / 1000}s apart: ${cacheIdx.map((i) => predicted[i]!.why).join(' | ')}`,
    },
    observed: cacheIdx.map((i) => `${pulls[i]!.label}: ${windows[i]!.execs.length > 0 ? 'exec' : 'cached'}`),
    show: (v) => v.join('; '),
    evidence: [
      {
        kind: 'data',
        label: 'schedule (ms after the first pod was created)',
        data: windows.map((w) => ({
          pull: w.pull.label,
          plannedMs: w.pull.atMs,
          createdMs: w.createdAt - origin,
          doneMs: w.doneAt - origin,
        })),
      },
      execEvidence,
      ...kubelet,
    ],
    startedAt,
  });
  // Replayed at the real times: a prediction that changes means the schedule slipped, not a kubelet verdict.
  const replay = (end: 'createdAt' | 'doneAt') =>
    predict(windows.map((w) => w[end] - origin))
      .map((d) => d.exec)
      .join();
  const planned = predicted.map((d) => d.exec).join();
  results.push(
    cache.status === 'failed' && (replay('createdAt') !== planned || replay('doneAt') !== planned)
      ? {
          ...cache,
          cause: 'harness',
          message: `schedule slipped, the prediction does not hold for when the pods really ran: ${cache.message}`,
        }
      : cache,
  );

  results.push(
    judge(KP_LIVE_NO_ERRORS, {
      prediction: {
        value: 0,
        model: `version table (kubelet ${kubeletVersion}: ${metric})`,
        because: 'a plugin that answers every request it gets never counts an error',
      },
      observed: errorsAfter.value - errorsBefore.value,
      show: (v) =>
        `${metric}{plugin_name="${o.provider.name}"} rose by ${v} (${errorsBefore.value} → ${errorsAfter.value})`,
      evidence: [
        {
          kind: 'text',
          label: `kubelet /metrics lines for ${metric} (before, after)`,
          text: `${errorsBefore.lines.join('\n') || '(no sample: never incremented)'}\n---\n${errorsAfter.lines.join('\n') || '(no sample: never incremented)'}`,
        },
        ...kubelet,
      ],
      startedAt,
    }),
  );
  if (upgrade) results.push(upgrade);
  return results;
}

/** The kubelet's error counter for one plugin, read through the API server's node proxy (absent = 0). */
export async function pluginErrors(
  env: Environment,
  metric: string,
  plugin: string,
): Promise<{ value: number; lines: string[] }> {
  const text = await (await kubeApi(env)).raw(`/api/v1/nodes/${encodeURIComponent(env.nodeName)}/proxy/metrics`);
  return parsePluginErrors(text, metric, plugin);
}

export function parsePluginErrors(text: string, metric: string, plugin: string): { value: number; lines: string[] } {
  const lines = text.split('\n').filter((l) => l.startsWith(`${metric}{`) && l.includes(`plugin_name="${plugin}"`));
  return { value: lines.reduce((sum, l) => sum + Number(l.trim().split(/\s+/).pop()), 0), lines };
}
