// The version-skew suite: with the API server at the newest version, the
// kubelet of each older minor (up to the skew policy's three) is swapped in,
// and the same questions are asked of each: provider order, the protocol
// version on the wire, and whether it refuses a config that only some
// versions refuse. Every prediction reads the version table or the config
// validator (validate-config --kube-version), never a per-version constant.
// A minor whose kubelet is not in the cache is skipped with the command that
// builds it (scripts/test.sh builds them all).
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { SA_TOKEN_GATE, validateProviderConfig } from '../../src/api/credentialprovider/config.ts';
import { kubeCacheRoot, listEntries } from '../../src/cluster/binaries/index.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { errorMessage } from '../../src/core/errors.ts';
import { cacheDir } from '../../src/core/paths.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import { providersForImage } from '../../src/matching/providers.ts';
import type { CheckResult, Evidence } from '../../src/report/model.ts';
import { skipped } from '../../src/report/checks.ts';
import { answer, kubeletEvidence, prepareFleet, runPod, startLabRegistry, type Fleet, type LabRegistry } from '../../src/run/lab.ts';
import { judge } from '../../src/run/prediction.ts';
import type { PreparedSuite, Suite, SuiteRun } from '../../src/run/suite.ts';
import { behaviourFor, parseKubeVersion } from '../../src/versions/table.ts';
import { SKEW_MINORS, skewChecks, VERSION_SKEW_CHECKS } from './checks.ts';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const V1BETA1 = 'credentialprovider.kubelet.k8s.io/v1beta1';
const IMAGES = { order: 'order.skew.test/app:v1', v1: 'v1.skew.test/app:v1', v1beta1: 'v1beta1.skew.test/app:v1' };

export const versionSkewSuite: Suite = {
  name: 'version-skew',
  summary: 'the kubelet of each minor the skew policy allows under the newest API server: provider order, protocol v1/v1beta1, and configs an older kubelet refuses, each predicted from the version table',
  checks: VERSION_SKEW_CHECKS,
  needsBuild: 'the kubelets of older minors (credprov binaries ensure --kube-version 1.N --only kubelet --skip-containerd)',
  async prepare(ctx): Promise<PreparedSuite> {
    const lab = await startLabRegistry(ctx, 'skew');
    let fleet: Fleet | undefined;
    const cleanup = async () => {
      await lab.stop();
      await fleet?.redactArtifacts();
    };
    try {
      for (const img of Object.values(IMAGES)) await lab.push(normalizeImage(img).path, 'v1');
      const creds = { '{registry}': { username: lab.user.username, password: lab.user.password } };
      const repos = Object.values(IMAGES).map((i) => normalizeImage(i).repository);
      const member = (name: string, host: string, apiVersion = V1) => ({ name, matchImages: [host], apiVersion, defaultCacheDuration: '0s', scenario: answer(repos, creds, { cacheDuration: '0s' }) });
      // Config order z before a: name order and config order differ.
      fleet = await prepareFleet(ctx, [member('skew-order-z', 'order.skew.test'), member('skew-order-a', 'order.skew.test'), member('skew-proto-v1', 'v1.skew.test'), member('skew-proto-v1beta1', 'v1beta1.skew.test', V1BETA1)]);
      const f = fleet;
      return { needs: ['installPlugins', 'hostRegistries', 'restartKubelet'], spec: f.spec, run: (run) => runSkew(run, lab, f), cleanup };
    } catch (err) {
      await cleanup();
      throw err;
    }
  },
};

async function runSkew(run: SuiteRun, lab: LabRegistry, fleet: Fleet): Promise<CheckResult[]> {
  let env = run.environment;
  const apiMinor = parseKubeVersion(env.kubeVersion).minor;
  await lab.serveAs(env, lab.registry.host);
  for (const img of Object.values(IMAGES)) await lab.serveAs(env, normalizeImage(img).registry);
  const cached = await listEntries(kubeCacheRoot(cacheDir(run.processEnv)), ['kubelet']).catch(() => []);
  const results: CheckResult[] = [];
  const baseProvider = run.environment.spec.credentialProvider!;
  try {
    for (const minor of SKEW_MINORS) {
      const c = skewChecks(minor);
      const kubelet = minor === apiMinor ? undefined : cached.filter((m) => parseKubeVersion(m.version).minor === minor).map((m) => m.version).sort().at(-1);
      if (minor !== apiMinor && !kubelet) {
        const why = `no cached 1.${minor} kubelet (build it: credprov binaries ensure --kube-version 1.${minor} --only kubelet --skip-containerd)`;
        results.push(...Object.values(c).map((check) => skipped(check, why)));
        continue;
      }
      const version = { version: kubelet } as { version?: string };
      run.progress.note(`version-skew: kubelet ${kubelet ?? env.kubeVersion} under kube-apiserver ${env.kubeVersion}`);
      env = await run.provider.restartKubelet(env, { kubelet: version, credentialProvider: baseProvider, featureGates: {} }, run.progress);
      const kv = env.kubeletVersion ?? env.kubeVersion;
      results.push(...(await pullChecks(env, kv, fleet, c)));
      results.push(await refusal(run, env, kv, c.gateOff, tokenConfig(fleet.config, 'ServiceAccount'), { [SA_TOKEN_GATE]: false }, version));
      results.push(await refusal(run, env, kv, c.noCacheType, tokenConfig(fleet.config, undefined), {}, version));
    }
  } finally {
    // Leave the environment as the runner expects it: the control plane's kubelet with this suite's config.
    env = await run.provider.restartKubelet(env, { kubelet: { version: undefined }, credentialProvider: baseProvider, featureGates: {} }, run.progress).catch(() => env);
  }
  return results;
}

/** Order and protocol on one kubelet: three pods at once, each prediction from the oracle and the version table of that kubelet. */
async function pullChecks(env: Environment, kubeletVersion: string, fleet: Fleet, c: ReturnType<typeof skewChecks>): Promise<CheckResult[]> {
  const startedAt = new Date();
  const since = startedAt.toISOString();
  const order = providersForImage(fleet.config, IMAGES.order, kubeletVersion);
  const protocols = { [normalizeImage(IMAGES.v1).repository]: V1, [normalizeImage(IMAGES.v1beta1).repository]: V1BETA1 };
  const predictedProtocol = Object.fromEntries(Object.keys(protocols).map((repo) => {
    const p = providersForImage(fleet.config, repo, kubeletVersion);
    const entry = fleet.config.providers.find((x) => x.name === p.invoked[0]);
    return [repo, `${p.invoked.join(',')}: ${entry?.apiVersion} request, pull success`];
  }));
  const tag = Date.now().toString(36);
  const [orderPod, v1Pod, v1beta1Pod] = await Promise.all([
    runPod(env, { name: `skew-order-${tag}`, image: IMAGES.order, pullPolicy: 'Always' }),
    runPod(env, { name: `skew-v1-${tag}`, image: IMAGES.v1, pullPolicy: 'Always' }),
    runPod(env, { name: `skew-v1beta1-${tag}`, image: IMAGES.v1beta1, pullPolicy: 'Always' }),
  ]);
  const invocations = (await fleet.invocations()).filter((r) => r.time >= since);
  const mine = (repo: string) => invocations.filter((r) => r.image === repo).sort((a, b) => a.time.localeCompare(b.time));
  const evidence = (pods: Array<{ evidence: Evidence[] }>, repo: string[]): Evidence[] => [
    { kind: 'invocation', label: `plugin invocations on kubelet ${kubeletVersion}`, data: invocations.filter((r) => repo.includes(r.image ?? '')).map((r) => ({ provider: r.provider, image: r.image, apiVersion: r.request.apiVersion, time: r.time, exitCode: r.response.exitCode })) },
    ...pods.flatMap((p) => p.evidence),
  ];
  const orderRepo = normalizeImage(IMAGES.order).repository;
  const behaviour = behaviourFor(kubeletVersion);
  return [
    judge(c.order, {
      prediction: { value: `${order.invoked.join(' → ')}, pull success`, model: `version table (kubelet ${kubeletVersion}: providerOrder ${behaviour.providerOrder}) and matching oracle`, because: `both providers match ${orderRepo}; a ${kubeletVersion} kubelet runs them in ${behaviour.providerOrder} order` },
      observed: `${[...new Set(mine(orderRepo).map((r) => r.provider))].join(' → ')}, pull ${orderPod.pull}`,
      show: String,
      evidence: evidence([orderPod], [orderRepo]),
      startedAt,
    }),
    judge(c.protocol, {
      prediction: { value: predictedProtocol, model: 'KEP-2133 and the provider entries\' apiVersion', because: 'each request is encoded at its provider entry\'s apiVersion, and the fake answers in the same version' },
      observed: Object.fromEntries(Object.keys(protocols).map((repo) => {
        const r = mine(repo);
        return [repo, `${r.map((x) => x.provider).join(',')}: ${r.map((x) => x.request.apiVersion).join(',')} request, pull ${(repo === normalizeImage(IMAGES.v1).repository ? v1Pod : v1beta1Pod).pull}`];
      })),
      show: (v) => Object.entries(v).map(([k, x]) => `${k} ← ${x}`).join('; '),
      evidence: evidence([v1Pod, v1beta1Pod], Object.keys(protocols)),
      startedAt,
    }),
  ];
}

/** The fleet's config with tokenAttributes on the v1 provider (cacheType left out when undefined). */
function tokenConfig(cfg: CredentialProviderConfig, cacheType: 'ServiceAccount' | undefined): CredentialProviderConfig {
  return {
    ...cfg,
    providers: cfg.providers.map((p) => (p.name === 'skew-proto-v1'
      ? { ...p, tokenAttributes: { serviceAccountTokenAudience: 'credprov-skew', requireServiceAccount: false, ...(cacheType ? { cacheType } : {}) } }
      : p)),
  } as CredentialProviderConfig;
}

/** Predict with the validator for that kubelet version and gates, then start the real kubelet with the config and see whether it refuses. */
async function refusal(run: SuiteRun, env: Environment, kubeletVersion: string, check: Parameters<typeof judge>[0], cfg: CredentialProviderConfig, gates: Record<string, boolean>, version: { version?: string }): Promise<CheckResult> {
  const startedAt = new Date();
  const problems = validateProviderConfig(cfg, { kubeVersion: kubeletVersion, featureGates: gates });
  const predicted = problems.length > 0 ? 'refuses to start' : 'starts';
  let observed: string;
  let kubeletError = '';
  try {
    await run.provider.restartKubelet(env, { kubelet: version, credentialProvider: { ...env.spec.credentialProvider!, config: cfg as unknown as Record<string, unknown> }, featureGates: gates }, run.progress);
    observed = 'starts';
  } catch (err) {
    observed = 'refuses to start';
    kubeletError = errorMessage(err);
  }
  const evidence: Evidence[] = [
    { kind: 'data', label: `validate-config --kube-version ${kubeletVersion}${Object.keys(gates).length ? ` --feature-gates ${Object.entries(gates).map(([k, v]) => `${k}=${v}`).join(',')}` : ''}`, data: problems },
    ...(kubeletError ? [{ kind: 'text' as const, label: 'the kubelet\'s own error', text: kubeletError }] : []),
    ...(await kubeletEvidence(env, ['credential provider', 'CredentialProvider', 'tokenAttributes', 'cacheType'])),
  ];
  const r = judge(check, {
    prediction: { value: predicted, model: `config validator (validate-config --kube-version ${kubeletVersion})`, because: problems.length ? problems.map((p) => `${p.field}: ${p.message}`).join('; ') : 'no rule of that version is broken' },
    observed,
    show: (v) => (v === observed && kubeletError ? `${v} (${kubeletError.slice(0, 240)})` : v),
    evidence,
    actor: `the ${kubeletVersion} kubelet`,
    startedAt,
  });
  return r;
}
