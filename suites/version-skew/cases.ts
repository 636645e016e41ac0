// One case per kubelet minor: swap that kubelet in under the API server
// (unless the skew policy rules that pairing out; an older minor's kubelet is
// built into the cache first when it is not there), pull through the order and
// protocol providers (three pods at once), then start it with configs only
// some versions refuse.
import { SA_TOKEN_GATE } from '../../src/api/credentialprovider/config.ts';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import type { CredentialProviderSpec } from '../../src/api/spec/types.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import { skewProblem } from '../../src/versions/skew.ts';
import {
  ensureKubelet,
  judge,
  kubeletEvidence,
  kubeletVersionOf,
  notApplicable,
  runPod,
  since,
  tryRestartKubelet,
  uniqueSuffix,
  type Case,
  type CaseContext,
  type Check,
  type CheckResult,
  type Environment,
  type Evidence,
  type Fleet,
} from '../../src/run/kit.ts';
import { skewChecks } from './checks.ts';
import { IMAGES, tokenConfig } from './plan.ts';
import { predictOrder, predictProtocol, predictStart, PROTOCOL_REPOSITORIES } from './predict.ts';

export interface SkewSetting {
  fleet: Fleet;
  apiMinor: number;
  /** The suite's credential provider spec: every minor starts from it. */
  baseProvider: CredentialProviderSpec;
}

type Checks = ReturnType<typeof skewChecks>;

export function minorCase(minor: number, s: SkewSetting): Case {
  const checks = skewChecks(minor);
  const outOfPolicy = skewProblem(`1.${s.apiMinor}`, `1.${minor}`);
  if (outOfPolicy)
    return {
      checks: Object.values(checks),
      run: async () => Object.values(checks).map((check) => notApplicable(check, outOfPolicy)),
    };
  return {
    checks: Object.values(checks),
    ...(minor === s.apiMinor ? {} : { needs: ['swapKubeletBinary' as const] }),
    async run(ctx) {
      // The API server's own minor: an explicit undefined puts the control plane's kubelet back.
      const kubelet = {
        version: minor === s.apiMinor ? undefined : await ensureKubelet(ctx, `1.${minor}`, `version-skew 1.${minor}`),
      };
      const env0 = ctx.environment;
      ctx.progress.note(
        `version-skew: kubelet ${kubelet.version ?? env0.kubeVersion} under kube-apiserver ${env0.kubeVersion}`,
      );
      const env = await ctx.provider.restartKubelet(
        env0,
        { kubelet, credentialProvider: s.baseProvider, featureGates: {} },
        ctx.progress,
      );
      const refusal = (check: Check, config: CredentialProviderConfig, gates: Record<string, boolean>) =>
        refusalCase(ctx, env, check, config, gates, kubelet);
      return [
        ...(await pullChecks(ctx, env, s.fleet, checks)),
        await refusal(checks.gateOff, tokenConfig(s.fleet.config, 'ServiceAccount'), { [SA_TOKEN_GATE]: false }),
        await refusal(checks.noCacheType, tokenConfig(s.fleet.config, undefined), {}),
      ];
    },
  };
}

/** Order and protocol on one kubelet: three pods at once, each prediction from the oracle and the version table of that kubelet. */
async function pullChecks(ctx: CaseContext, env: Environment, fleet: Fleet, checks: Checks): Promise<CheckResult[]> {
  const kubeletVersion = kubeletVersionOf(env);
  const orderPrediction = predictOrder(fleet.config, kubeletVersion);
  const protocolPrediction = predictProtocol(fleet.config, kubeletVersion);
  const execs = await since(() => fleet.invocations());
  const tag = uniqueSuffix(ctx.clock);
  const [orderPod, v1Pod, v1beta1Pod] = await Promise.all([
    runPod(env, { name: `skew-order-${tag}`, image: IMAGES.order, pullPolicy: 'Always' }),
    runPod(env, { name: `skew-v1-${tag}`, image: IMAGES.v1, pullPolicy: 'Always' }),
    runPod(env, { name: `skew-v1beta1-${tag}`, image: IMAGES.v1beta1, pullPolicy: 'Always' }),
  ]);
  const invocations = await execs.added();
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
    }),
  ];
}

/** Predict with the validator for that kubelet version and gates, then start the real kubelet with the config and see whether it refuses. */
async function refusalCase(
  ctx: CaseContext,
  env: Environment,
  check: Check,
  config: CredentialProviderConfig,
  gates: Record<string, boolean>,
  kubelet: { version: string | undefined },
): Promise<CheckResult> {
  const kubeletVersion = kubeletVersionOf(env);
  const { prediction, problems } = predictStart(config, kubeletVersion, gates);
  const credentialProvider = { ...env.spec.credentialProvider!, config: config as unknown as Record<string, unknown> };
  const start = await tryRestartKubelet(ctx, env, { kubelet, credentialProvider, featureGates: gates });
  const gateFlags = Object.keys(gates).length
    ? ` --feature-gates ${Object.entries(gates)
        .map(([k, v]) => `${k}=${v}`)
        .join(',')}`
    : '';
  const evidence: Evidence[] = [
    { kind: 'data', label: `validate-config --kube-version ${kubeletVersion}${gateFlags}`, data: problems },
    ...(start.error ? [{ kind: 'text' as const, label: "the kubelet's own error", text: start.error }] : []),
    ...(await kubeletEvidence(env, ['credential provider', 'CredentialProvider', 'tokenAttributes', 'cacheType'])),
  ];
  return judge<string>(check, {
    prediction,
    observed: start.outcome,
    show: (v) => (v === start.outcome && start.error ? `${v} (${start.error.slice(0, 240)})` : v),
    evidence,
    actor: `the ${kubeletVersion} kubelet`,
  });
}
