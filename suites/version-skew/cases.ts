// One case per kubelet minor: swap that kubelet in under the API server
// (unless the skew policy rules that pairing out), pull through the order and protocol providers (three pods at once),
// then start it with configs only some versions refuse.
import { SA_TOKEN_GATE } from '../../src/api/credentialprovider/config.ts';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import type { CredentialProviderSpec } from '../../src/api/spec/types.ts';
import { errorMessage } from '../../src/core/errors.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import { skewProblem } from '../../src/versions/skew.ts';
import {
  judge,
  kubeletEvidence,
  notApplicable,
  notRun,
  runPod,
  type Case,
  type CaseContext,
  type Check,
  type CheckResult,
  type Environment,
  type Evidence,
  type Fleet,
} from '../../src/run/kit.ts';
import { skewChecks } from './checks.ts';
import { buildCommand, IMAGES, kubeletForMinor, tokenConfig } from './plan.ts';
import { predictOrder, predictProtocol, predictStart, PROTOCOL_REPOSITORIES } from './predict.ts';

export interface SkewSetting {
  fleet: Fleet;
  apiMinor: number;
  /** Versions of the kubelets in credprov's binaries cache. */
  cachedVersions: string[];
  /** The suite's credential provider spec: every minor starts from it. */
  baseProvider: CredentialProviderSpec;
}

export function minorCase(minor: number, s: SkewSetting): Case {
  const checks = skewChecks(minor);
  const outOfPolicy = skewProblem(`1.${s.apiMinor}`, `1.${minor}`);
  if (outOfPolicy)
    return {
      checks: Object.values(checks),
      run: async () => Object.values(checks).map((check) => notApplicable(check, outOfPolicy)),
    };
  const kubelet = kubeletForMinor(minor, s.apiMinor, s.cachedVersions);
  return {
    checks: Object.values(checks),
    ...(minor === s.apiMinor ? {} : { needs: ['swapKubeletBinary' as const] }),
    async run(ctx) {
      if (kubelet === 'missing') {
        const why = `no cached 1.${minor} kubelet (build it: ${buildCommand(minor)})`;
        return Object.values(checks).map((check) => notRun(check, why, ctx.ci));
      }
      const env0 = ctx.environment;
      ctx.progress.note(
        `version-skew: kubelet ${kubelet.version ?? env0.kubeVersion} under kube-apiserver ${env0.kubeVersion}`,
      );
      const change = { kubelet, credentialProvider: s.baseProvider, featureGates: {} };
      const env = await ctx.provider.restartKubelet(env0, change, ctx.progress);
      const kubeletVersion = env.kubeletVersion ?? env.kubeVersion;
      return [
        ...(await pullChecks(env, kubeletVersion, s.fleet, checks)),
        await refusal(
          ctx,
          env,
          kubeletVersion,
          checks.gateOff,
          tokenConfig(s.fleet.config, 'ServiceAccount'),
          { [SA_TOKEN_GATE]: false },
          kubelet,
        ),
        await refusal(
          ctx,
          env,
          kubeletVersion,
          checks.noCacheType,
          tokenConfig(s.fleet.config, undefined),
          {},
          kubelet,
        ),
      ];
    },
  };
}

/** Order and protocol on one kubelet: three pods at once, each prediction from the oracle and the version table of that kubelet. */
async function pullChecks(
  env: Environment,
  kubeletVersion: string,
  fleet: Fleet,
  checks: ReturnType<typeof skewChecks>,
): Promise<CheckResult[]> {
  const startedAt = new Date();
  const since = startedAt.toISOString();
  const orderPrediction = predictOrder(fleet.config, kubeletVersion);
  const protocolPrediction = predictProtocol(fleet.config, kubeletVersion);
  const tag = Date.now().toString(36);
  const [orderPod, v1Pod, v1beta1Pod] = await Promise.all([
    runPod(env, { name: `skew-order-${tag}`, image: IMAGES.order, pullPolicy: 'Always' }),
    runPod(env, { name: `skew-v1-${tag}`, image: IMAGES.v1, pullPolicy: 'Always' }),
    runPod(env, { name: `skew-v1beta1-${tag}`, image: IMAGES.v1beta1, pullPolicy: 'Always' }),
  ]);
  const invocations = (await fleet.invocations()).filter((r) => r.time >= since);
  const mine = (repository: string) =>
    invocations.filter((r) => r.image === repository).sort((a, b) => a.time.localeCompare(b.time));
  const evidence = (pods: Array<{ evidence: Evidence[] }>, repositories: string[]): Evidence[] => [
    {
      kind: 'invocation',
      label: `plugin invocations on kubelet ${kubeletVersion}`,
      data: invocations
        .filter((r) => repositories.includes(r.image ?? ''))
        .map((r) => ({
          provider: r.provider,
          image: r.image,
          apiVersion: r.request.apiVersion,
          time: r.time,
          exitCode: r.response.exitCode,
        })),
    },
    ...pods.flatMap((p) => p.evidence),
  ];
  const orderRepository = normalizeImage(IMAGES.order).repository;
  const podOf = (repository: string) => (repository === normalizeImage(IMAGES.v1).repository ? v1Pod : v1beta1Pod);
  return [
    judge(checks.order, {
      prediction: orderPrediction,
      observed: `${[...new Set(mine(orderRepository).map((r) => r.provider))].join(' → ')}, pull ${orderPod.pull}`,
      show: String,
      evidence: evidence([orderPod], [orderRepository]),
      startedAt,
    }),
    judge(checks.protocol, {
      prediction: protocolPrediction,
      observed: Object.fromEntries(
        PROTOCOL_REPOSITORIES.map((repository) => {
          const runs = mine(repository);
          const requests = `${runs.map((x) => x.provider).join(',')}: ${runs.map((x) => x.request.apiVersion).join(',')} request`;
          return [repository, `${requests}, pull ${podOf(repository).pull}`];
        }),
      ),
      show: (v) =>
        Object.entries(v)
          .map(([k, x]) => `${k} ← ${x}`)
          .join('; '),
      evidence: evidence([v1Pod, v1beta1Pod], PROTOCOL_REPOSITORIES),
      startedAt,
    }),
  ];
}

/** Predict with the validator for that kubelet version and gates, then start the real kubelet with the config and see whether it refuses. */
async function refusal(
  ctx: CaseContext,
  env: Environment,
  kubeletVersion: string,
  check: Check,
  config: CredentialProviderConfig,
  gates: Record<string, boolean>,
  kubelet: { version: string | undefined },
): Promise<CheckResult> {
  const startedAt = new Date();
  const { prediction, problems } = predictStart(config, kubeletVersion, gates);
  let observed: string;
  let kubeletError = '';
  try {
    const credentialProvider = {
      ...env.spec.credentialProvider!,
      config: config as unknown as Record<string, unknown>,
    };
    await ctx.provider.restartKubelet(env, { kubelet, credentialProvider, featureGates: gates }, ctx.progress);
    observed = 'starts';
  } catch (err) {
    observed = 'refuses to start';
    kubeletError = errorMessage(err);
  }
  const gateFlags = Object.keys(gates).length
    ? ` --feature-gates ${Object.entries(gates)
        .map(([k, v]) => `${k}=${v}`)
        .join(',')}`
    : '';
  const evidence: Evidence[] = [
    { kind: 'data', label: `validate-config --kube-version ${kubeletVersion}${gateFlags}`, data: problems },
    ...(kubeletError ? [{ kind: 'text' as const, label: "the kubelet's own error", text: kubeletError }] : []),
    ...(await kubeletEvidence(env, ['credential provider', 'CredentialProvider', 'tokenAttributes', 'cacheType'])),
  ];
  return judge<string>(check, {
    prediction,
    observed,
    show: (v) => (v === observed && kubeletError ? `${v} (${kubeletError.slice(0, 240)})` : v),
    evidence,
    actor: `the ${kubeletVersion} kubelet`,
    startedAt,
  });
}
