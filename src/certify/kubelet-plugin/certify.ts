// certifyKubeletPlugin: run a kubelet image credential provider plugin the way
// the kubelet does, provoke it the way production does, and judge it against
// the contract. The steps, in order:
//   1. install     a bin dir holding <provider name> → the plugin (argv[0] as the kubelet's)
//   2. identity    with tokenAttributes: a pod-bound SA token for the audience, and annotations
//   3. probe       one request per probe image, sequentially (latency, field checks)
//   4. provoke     an image outside matchImages, and a request that is not JSON
//   5. concurrency N requests at once across the probe images
//   6. judge       every check, then any extra checks the caller added (e.g. --verify-pull)
import { mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type {
  CredentialProvider,
  CredentialProviderRequest,
  CredentialProviderResponse,
} from '../../api/credentialprovider/types.ts';
import { CredprovError } from '../../core/errors.ts';
import { noopLogger, type Logger } from '../../core/logger.ts';
import { silentProgress, step, type Progress } from '../../core/progress.ts';
import type { Redactor } from '../../core/redact.ts';
import { cutResponse, InvocationLog, type Invocation } from '../../plugin/invocation.ts';
import { KUBELET_PLUGIN_TIMEOUT_MS, runKubeletPlugin } from '../../plugin/kubelet-exec.ts';
import type { Outcome } from '../../report/checks.ts';
import type { Check, CheckResult } from '../../report/model.ts';
import { latencyOf } from '../../report/statistics.ts';
import { behaviourFor, newestBehaviour, type KubeVersion } from '../../versions/table.ts';
import { judgeCheck, judgeChecks, type Basis } from '../kit.ts';
import { analyseResponse } from './analyse.ts';
import * as E from './evaluate.ts';
import type { Observations, Probe } from './evaluate.ts';
import { unservableImage } from './images.ts';
import { mintServiceAccountToken, type MintedServiceAccount, type ServiceAccountIdentity } from './service-account.ts';

export const DEFAULT_CONCURRENCY = 8;
export const MALFORMED_REQUEST = 'credprov: this is not a CredentialProviderRequest\n';

/** What an extra check sees: the provider, what the plugin answered, and a way to ask it again. */
export interface CertifyContext {
  provider: CredentialProvider;
  images: string[];
  probes: Probe[];
  observations: Observations;
  timeoutMs: number;
  redactor: Redactor;
  logger: Logger;
  /** Runs the plugin once more, exactly as the kubelet would, for `image`. */
  invoke(image: string): Promise<Probe>;
}

/** A check added by the caller (e.g. --verify-pull: do the returned credentials open the image?). */
export interface ExtraCheck {
  check: Check;
  run(ctx: CertifyContext): Promise<Outcome> | Outcome;
  /** What a pass rests on (certify/kit.ts); default: the check judges its own inputs. */
  basis?(obs: Observations): Basis;
}

export interface CertifyKubeletPluginOptions {
  /** The plugin executable. */
  plugin: string;
  provider: CredentialProvider;
  /** Normalized repositories to request (see images.ts chooseImages). */
  images: string[];
  redactor: Redactor;
  timeoutMs?: number;
  kubeVersion?: KubeVersion;
  concurrency?: number;
  /** The environment the plugin inherits (the kubelet's); default this process's. */
  parentEnv?: NodeJS.ProcessEnv;
  log?: InvocationLog;
  logger?: Logger;
  progress?: Progress;
  extraChecks?: ExtraCheck[];
  /** With tokenAttributes: namespace, names and annotation values to put in the token and request (defaults are probe values). */
  serviceAccount?: Partial<ServiceAccountIdentity>;
  /** Aborting stops between steps; running plugins are killed by the caller (killRunningPlugins). */
  signal?: AbortSignal;
}

export interface CertifyKubeletPluginResult {
  checks: CheckResult[];
  metrics: Record<string, unknown>;
  invocations: Invocation[];
  observations: Observations;
}

export async function certifyKubeletPlugin(o: CertifyKubeletPluginOptions): Promise<CertifyKubeletPluginResult> {
  const provider = o.provider;
  const timeoutMs = o.timeoutMs ?? KUBELET_PLUGIN_TIMEOUT_MS;
  const behaviour = o.kubeVersion ? behaviourFor(o.kubeVersion) : newestBehaviour();
  const progress = o.progress ?? silentProgress;
  const logger = o.logger ?? noopLogger;
  const log = o.log ?? new InvocationLog();
  const concurrency = o.concurrency ?? DEFAULT_CONCURRENCY;
  const t0 = performance.now();

  const binDir = await mkdtemp(join(tmpdir(), 'credprov-bin-'));
  try {
    await symlink(await realpath(resolve(o.plugin)), join(binDir, provider.name));
    const serviceAccount = provider.tokenAttributes
      ? await mintServiceAccountToken(provider.tokenAttributes, o.serviceAccount)
      : undefined;
    if (serviceAccount) o.redactor.add(serviceAccount.token);

    const invoke = async (image: string, raw?: string): Promise<Probe> => {
      if (o.signal?.aborted) {
        const why = o.signal.reason instanceof Error ? o.signal.reason.message : 'interrupted';
        throw new CredprovError(
          `${why}: stopped before certifying finished; plugin processes killed, temporary bin dir removed`,
          { exitCode: 130 },
        );
      }
      const invocation = await runKubeletPlugin({
        binDir,
        name: provider.name,
        args: provider.args ?? [],
        env: provider.env ?? [],
        ...(o.parentEnv ? { parentEnv: o.parentEnv } : {}),
        request: raw !== undefined ? { raw } : requestFor(provider, image, serviceAccount),
        apiVersion: provider.apiVersion,
        timeoutMs,
        log,
        redactor: o.redactor,
      });
      logger.debug(
        `${invocation.id} ${image}: exit ${invocation.exitCode ?? '-'}${invocation.timedOut ? ' (timed out)' : ''} in ${invocation.durationMs}ms`,
      );
      const probe: Probe = { image, invocation };
      if (!invocation.spawnError && !invocation.timedOut && invocation.exitCode === 0) {
        const cut = cutResponse(invocation);
        probe.analysis = analyseResponse(
          invocation.stdout,
          provider.apiVersion,
          cut,
          invocation.response && !cut
            ? { ok: true, response: invocation.response as CredentialProviderResponse }
            : undefined,
        );
      }
      return probe;
    };

    const obs: Observations = {
      provider,
      timeoutMs,
      behaviour,
      probes: [],
      ...(serviceAccount ? { serviceAccount } : {}),
    };
    await step(progress, `probing ${o.images.length} image(s)`, async () => {
      for (const image of o.images) obs.probes.push(await invoke(image));
    });
    await step(progress, 'provoking failures (unservable image, malformed request)', async () => {
      obs.unservable = await invoke(unservableImage(provider));
      obs.malformed = await invoke('(malformed request)', MALFORMED_REQUEST);
    });

    if (obs.probes.some((p) => p.invocation.timedOut))
      obs.concurrencySkipped = 'not run: the plugin already timed out when run alone (see KP-TIMEOUT)';
    else if (!obs.probes.some((p) => p.analysis))
      obs.concurrencySkipped = 'not run: no probe succeeded when run alone (see KP-EXEC)';
    else if (obs.probes.every((p) => !p.analysis || p.analysis.cut))
      obs.concurrencySkipped = `not run: credprov could not keep the answers whole when run alone (see KP-STDOUT-ONLY-JSON)`;
    else {
      const images = Array.from({ length: concurrency }, (_, i) => o.images[i % o.images.length]!);
      obs.concurrent = await step(progress, `${concurrency} concurrent invocations`, () =>
        Promise.all(images.map((image) => invoke(image))),
      );
    }

    const checks: CheckResult[] = await judgeChecks(E.KUBELET_PLUGIN_JUDGES, obs);
    const ctx: CertifyContext = {
      provider,
      images: o.images,
      probes: obs.probes,
      observations: obs,
      timeoutMs,
      redactor: o.redactor,
      logger,
      invoke: (image) => invoke(image),
    };
    for (const extra of o.extraChecks ?? [])
      checks.push(
        await judgeCheck(
          {
            check: extra.check,
            basis: () => extra.basis?.(obs) ?? { count: 1, lacking: '' },
            judge: () => extra.run(ctx),
          },
          obs,
        ),
      );

    const invocations = E.allInvocations(obs);
    const metrics = {
      invocations: invocations.length,
      latencyMs: latencyOf(E.durationsOf(invocations)),
      // The samples latencyMs is computed on: report.html draws the histogram from these.
      durationsMs: E.durationsOf(invocations),
      sequentialLatencyMs: latencyOf(E.durationsOf(obs.probes.map((p) => p.invocation))),
      ...(obs.concurrent
        ? { concurrentLatencyMs: latencyOf(E.durationsOf(obs.concurrent.map((p) => p.invocation))), concurrency }
        : {}),
      timeoutMs,
      totalMs: Math.round(performance.now() - t0),
    };
    return { checks, metrics, invocations: log.records, observations: obs };
  } finally {
    await rm(binDir, { recursive: true, force: true });
  }
}

/** The request the kubelet sends: the repository, and with tokenAttributes the SA token and annotations. */
export function requestFor(
  provider: CredentialProvider,
  image: string,
  sa?: MintedServiceAccount,
): CredentialProviderRequest {
  const req: CredentialProviderRequest = { apiVersion: provider.apiVersion, kind: 'CredentialProviderRequest', image };
  if (sa) {
    req.serviceAccountToken = sa.token;
    // Go's omitempty: an empty annotations map is not sent at all.
    if (Object.keys(sa.annotations).length > 0) req.serviceAccountAnnotations = sa.annotations;
  }
  return req;
}
