// The downgrade suite: the rollback paths the KEPs promise, each walked on the
// real kubelet as a user would, with credprov's prediction stated first from
// its own code (the config validator, the response decoder, the pull
// credentials model) and what the user sees kept as evidence: the kubelet's
// error, pod states, the credentials used.
import type { ScenarioFile } from '../../fixtures/fake-credential-provider/scenario.ts';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { SA_TOKEN_GATE, validateProviderConfig } from '../../src/api/credentialprovider/config.ts';
import { decodeResponse } from '../../src/api/credentialprovider/response.ts';
import { layoutFor } from '../../src/cluster/local/layout.ts';
import { SANDBOX_IMAGE_REF } from '../../src/cluster/local/sandbox-image.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { errorMessage } from '../../src/core/errors.ts';
import { predictPull } from '../../src/model/pull-credentials.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import type { CheckResult, Evidence } from '../../src/report/model.ts';
import { answer, kubeletEvidence, prepareFleet, runPod, startLabRegistry, type Fleet, type LabRegistry } from '../../src/run/lab.ts';
import { createPod, deletePod, watchPod } from '../../src/run/pods.ts';
import { judge } from '../../src/run/prediction.ts';
import type { PreparedSuite, Suite, SuiteRun } from '../../src/run/suite.ts';
import { ensureGateToggle, kubeletOneMinor } from './records.ts';
import { DOWNGRADE_CHECKS, NO_PROVIDER_FALLBACK, PODS_KEEP_RUNNING, RESPONSE_APIVERSION, SA_GATE_OFF_FIX, SA_GATE_OFF_REFUSED } from './checks.ts';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const V1BETA1 = 'credentialprovider.kubelet.k8s.io/v1beta1';
const PROVIDER = 'down-fake';
const IMAGE = 'app.down.test/app:v1';
const OTHER = 'other.down.test/app:v1';
// Records and the cache get their own images, so earlier cases leave no record for them.
const RECORDED = 'records.down.test/app:v1';
const RECORDED_MINOR = 'records-minor.down.test/app:v1';
const VIA_PLUGIN = 'cache.down.test/app:v1';
const ALL_IMAGES = [IMAGE, OTHER, RECORDED, RECORDED_MINOR, VIA_PLUGIN];

export const downgradeSuite: Suite = {
  name: 'downgrade',
  summary: 'rollback paths: the SA-token gate turned off (refusal, the documented fix, pods keep running), the provider config removed (fallback to node credentials), the response apiVersion switched between v1 and v1beta1, KubeletEnsureSecretPulledImages off and on, and the kubelet downgraded one minor with records and a warm credential cache',
  checks: DOWNGRADE_CHECKS,
  async prepare(ctx): Promise<PreparedSuite> {
    const lab = await startLabRegistry(ctx, 'down');
    let fleet: Fleet | undefined;
    const cleanup = async () => {
      await lab.stop();
      await fleet?.redactArtifacts();
    };
    try {
      for (const img of ALL_IMAGES) await lab.push(normalizeImage(img).path, 'v1');
      fleet = await prepareFleet(ctx, [{ name: PROVIDER, matchImages: ['*.down.test'], apiVersion: V1, defaultCacheDuration: '0s', scenario: scenario(lab) }]);
      const f = fleet;
      return { needs: ['installPlugins', 'hostRegistries', 'restartKubelet'], spec: f.spec, run: (run) => runDowngrade(run, lab, f), cleanup };
    } catch (err) {
      await cleanup();
      throw err;
    }
  },
};

/** The fake answers the right password; `apiVersion` pins its response version (default: the request's). */
function scenario(lab: LabRegistry, apiVersion?: string): ScenarioFile {
  const s = answer([normalizeImage(IMAGE).repository, normalizeImage(OTHER).repository], { '{registry}': { username: lab.user.username, password: lab.user.password } }, { cacheDuration: '0s' });
  if (apiVersion) s.rules[0]!.apiVersion = apiVersion;
  // The cache image: a Registry entry for 5 minutes, so a warm cache is there to lose on a kubelet restart.
  s.rules.push(...answer([normalizeImage(VIA_PLUGIN).repository], { '{registry}': { username: lab.user.username, password: lab.user.password } }, { cacheKeyType: 'Registry', cacheDuration: '5m' }).rules);
  return s;
}

async function runDowngrade(run: SuiteRun, lab: LabRegistry, fleet: Fleet): Promise<CheckResult[]> {
  let env = run.environment;
  await lab.serveAs(env, lab.registry.host);
  for (const img of ALL_IMAGES) await lab.serveAs(env, normalizeImage(img).registry);
  const base = env.spec.credentialProvider!;
  const results: CheckResult[] = [];
  try {
    results.push(...(await saGateOff(run, env, fleet)));
    env = await run.provider.restartKubelet(env, { credentialProvider: base, featureGates: {} }, run.progress);
    results.push(await fallback(run, env, lab, fleet));
    env = await run.provider.restartKubelet(env, { credentialProvider: base, featureGates: {} }, run.progress);
    results.push(await apiVersionSwitch(run, env, lab, fleet));
    await fleet.rescript(PROVIDER, scenario(lab));
    env = await run.provider.restartKubelet(env, { credentialProvider: base, featureGates: {} }, run.progress);
    const toggled = await ensureGateToggle(run, env, lab, RECORDED);
    results.push(toggled.result);
    const minor = await kubeletOneMinor(run, toggled.env, lab, fleet, { recorded: RECORDED_MINOR, viaPlugin: VIA_PLUGIN });
    results.push(minor.result);
    env = minor.env;
  } finally {
    await fleet.rescript(PROVIDER, scenario(lab)).catch(() => {});
    await run.provider.restartKubelet(env, { credentialProvider: base, featureGates: {} }, run.progress).catch(() => {});
  }
  return results;
}

interface ContainerState { phase: string; containerID: string; restartCount: number; running: boolean }

function containerState(pod: V1Pod): ContainerState {
  const cs = pod.status?.containerStatuses?.[0];
  return { phase: pod.status?.phase ?? '', containerID: cs?.containerID ?? '', restartCount: cs?.restartCount ?? -1, running: Boolean(cs?.state?.running) };
}

/** Watches the pod (in `default`; it may not be there yet) until its container runs. */
async function waitRunning(env: Environment, name: string, timeoutMs = 60_000): Promise<ContainerState> {
  let last: ContainerState | undefined;
  return watchPod(env, name, 'default', timeoutMs, (pod) => {
    last = containerState(pod);
    return last.running && last.containerID ? last : undefined;
  }, { mayNotExistYet: true, timeoutMessage: () => `pod ${name} did not reach Running within ${timeoutMs / 1000}s (${JSON.stringify(last)})` });
}

/** Start the kubelet with a config and gates; 'refuses to start' with the kubelet's own error, or 'starts'. */
async function tryStart(run: SuiteRun, env: Environment, cfg: CredentialProviderConfig, gates: Record<string, boolean>): Promise<{ outcome: 'starts' | 'refuses to start'; error: string; env: Environment }> {
  try {
    const next = await run.provider.restartKubelet(env, { credentialProvider: { ...env.spec.credentialProvider!, config: cfg as unknown as Record<string, unknown> }, featureGates: gates }, run.progress);
    return { outcome: 'starts', error: '', env: next };
  } catch (err) {
    return { outcome: 'refuses to start', error: errorMessage(err), env };
  }
}

async function saGateOff(run: SuiteRun, env: Environment, fleet: Fleet): Promise<CheckResult[]> {
  const startedAt = new Date();
  const kv = env.kubeletVersion ?? env.kubeVersion;
  const gates = { [SA_TOKEN_GATE]: false };
  const withToken = { ...fleet.config, providers: fleet.config.providers.map((p) => ({ ...p, tokenAttributes: { serviceAccountTokenAudience: 'credprov-down', cacheType: 'ServiceAccount', requireServiceAccount: false } })) } as CredentialProviderConfig;
  const pod = `down-running-${Date.now().toString(36)}`;
  await createPod(env, { name: pod, image: SANDBOX_IMAGE_REF, pullPolicy: 'Never' });
  try {
    const before = await waitRunning(env, pod);
    // 1. the gate off with tokenAttributes in the config.
    const refusedProblems = validateProviderConfig(withToken, { kubeVersion: kv, featureGates: gates });
    const refused = await tryStart(run, env, withToken, gates);
    const r1 = judge(SA_GATE_OFF_REFUSED, {
      prediction: { value: refusedProblems.length ? 'refuses to start' : 'starts', model: `config validator (validate-config --kube-version ${kv} --feature-gates ${SA_TOKEN_GATE}=false)`, because: refusedProblems.map((p) => `${p.field}: ${p.message}`).join('; ') || 'no rule broken' },
      observed: refused.outcome,
      show: (v) => (v === refused.outcome && refused.error ? `${v}: ${refused.error.slice(0, 260)}` : v),
      evidence: [{ kind: 'text', label: 'the kubelet\'s error, as the user sees it', text: refused.error || '(none: it started)' }],
      startedAt,
    });
    // 2. the documented fix: drop tokenAttributes, gate still off.
    const fixProblems = validateProviderConfig(fleet.config, { kubeVersion: kv, featureGates: gates });
    const fixed = await tryStart(run, env, fleet.config, gates);
    const pull = fixed.outcome === 'starts' ? await runPod(fixed.env, { name: `down-fix-${Date.now().toString(36)}`, image: IMAGE, pullPolicy: 'Always' }) : undefined;
    const since = startedAt.toISOString();
    const tokenless = (await fleet.invocations()).filter((i) => i.time >= since && i.image === normalizeImage(IMAGE).repository);
    const r2 = judge(SA_GATE_OFF_FIX, {
      prediction: { value: `${fixProblems.length ? 'refuses to start' : 'starts'}; pull success without a token`, model: `config validator (${kv}, gate off) and KEP-4412`, because: fixProblems.length ? fixProblems.map((p) => p.message).join('; ') : 'without tokenAttributes the config is valid with the gate off, and the provider is exec\'d without a token' },
      observed: `${fixed.outcome}; pull ${pull?.pull ?? 'not tried'}${tokenless.some((i) => i.tokenPresent) ? ' with a token' : ' without a token'}`,
      show: String,
      evidence: [...(pull?.evidence ?? []), { kind: 'invocation', label: 'plugin invocations after the fix', data: tokenless.map((i) => ({ image: i.image, tokenPresent: i.tokenPresent, exitCode: i.response.exitCode })) }, ...(fixed.error ? [{ kind: 'text' as const, label: 'kubelet error', text: fixed.error }] : [])],
      startedAt,
    });
    // 3. the pod that ran all along.
    const after = await waitRunning(fixed.env, pod, 30_000).catch((err: unknown) => ({ phase: errorMessage(err), containerID: '', restartCount: -1, running: false }));
    const r3 = judge(PODS_KEEP_RUNNING, {
      prediction: { value: { running: true, sameContainer: true, restartCount: before.restartCount }, model: 'KEP-4412 rollback', because: 'a refused kubelet start and a restart do not touch running containers' },
      observed: { running: after.running, sameContainer: after.containerID === before.containerID, restartCount: after.restartCount },
      show: (v) => `running ${v.running}, same container ${v.sameContainer}, restarts ${v.restartCount}`,
      evidence: [{ kind: 'data', label: 'container before and after', data: { before, after } }],
      startedAt,
    });
    return [r1, r2, r3];
  } finally {
    await deletePod(env, pod);
  }
}

async function fallback(run: SuiteRun, env: Environment, lab: LabRegistry, fleet: Fleet): Promise<CheckResult> {
  const startedAt = new Date();
  // The node's own credentials: a docker config.json in the kubelet's root dir (its preferred path),
  // for the registry of IMAGE only. Removed again afterwards: it would leak into every later suite.
  const nodeConfig = join(layoutFor(env.name, run.processEnv).kubeletRoot, 'config.json');
  const host = normalizeImage(IMAGE).registry;
  const cred = (works: boolean) => ({ username: lab.user.username, works });
  const provider = { name: PROVIDER, matchImages: ['*.down.test'], auths: { [host]: cred(true), [normalizeImage(OTHER).registry]: cred(true) } };
  const node = { [host]: cred(true) };
  const images = [IMAGE, OTHER];
  const predicted = images.map((image) => {
    const withProvider = predictPull({ image, secrets: [], providers: [provider], node });
    const without = predictPull({ image, secrets: [], node });
    return { image, before: `${withProvider.pull} (${withProvider.usedBy ?? 'no credential'})`, after: `${without.pull} (${without.usedBy ?? 'no credential'})`, because: without.because };
  });
  await writeFile(nodeConfig, JSON.stringify({ auths: { [host]: { auth: Buffer.from(`${lab.user.username}:${lab.user.password}`).toString('base64') } } }), { mode: 0o600 });
  try {
    const tag = Date.now().toString(36);
    const before = await Promise.all(images.map((image, i) => runPod(env, { name: `down-before-${i}-${tag}`, image, pullPolicy: 'Always' })));
    const withoutConfig = await run.provider.restartKubelet(env, { credentialProvider: null }, run.progress);
    const after = await Promise.all(images.map((image, i) => runPod(withoutConfig, { name: `down-after-${i}-${tag}`, image, pullPolicy: 'Always' })));
    const invokedAfter = (await fleet.invocations()).filter((i) => i.time >= startedAt.toISOString()).length;
    const observed = images.map((image, i) => ({ image, before: `${before[i]!.pull}`, after: `${after[i]!.pull}` }));
    return judge(NO_PROVIDER_FALLBACK, {
      prediction: { value: predicted.map((p) => ({ image: p.image, before: p.before.split(' ')[0]!, after: p.after.split(' ')[0]! })), model: 'pull credentials model (src/model/pull-credentials.ts: pod secrets, node config.json, providers)', because: predicted.map((p) => `${p.image}: with the provider ${p.before}, without it ${p.after}`).join('; ') },
      observed,
      show: (v) => v.map((x) => `${x.image}: ${x.before} → ${x.after}`).join('; '),
      evidence: [...before.flatMap((p) => p.evidence), ...after.flatMap((p) => p.evidence), { kind: 'data', label: 'plugin execs after the provider config was removed (of all pulls in this case)', data: { invocations: invokedAfter } }, ...(await kubeletEvidence(env, ['config.json', 'credential provider']))],
      startedAt,
    });
  } finally {
    await rm(nodeConfig, { force: true });
  }
}

async function apiVersionSwitch(run: SuiteRun, env: Environment, lab: LabRegistry, fleet: Fleet): Promise<CheckResult> {
  const startedAt = new Date();
  // Each step: the provider entry's apiVersion, and what the plugin answers with (undefined: the request's version).
  const steps: Array<{ config: string; answers?: string }> = [{ config: V1 }, { config: V1BETA1 }, { config: V1BETA1, answers: V1 }, { config: V1, answers: V1 }];
  const predicted: string[] = [];
  const observed: string[] = [];
  const evidence: Evidence[] = [];
  let current = env;
  for (const [i, s] of steps.entries()) {
    const answerVersion = s.answers ?? s.config;
    // The decoder credprov certifies plugins with is the prediction: would the kubelet accept this stdout for this entry?
    const stdout = JSON.stringify({ apiVersion: answerVersion, kind: 'CredentialProviderResponse', cacheKeyType: 'Image', cacheDuration: '0s', auth: { [normalizeImage(IMAGE).registry]: { username: 'u', password: 'p' } } });
    const decoded = decodeResponse(stdout, s.config);
    const label = `config ${s.config.split('/')[1]}, plugin answers ${answerVersion.split('/')[1]}`;
    predicted.push(`${label}: ${decoded.ok ? 'pull success' : 'pull failure (response refused)'}`);
    await fleet.rescript(PROVIDER, scenario(lab, s.answers));
    const cfg = { ...fleet.config, providers: fleet.config.providers.map((p) => ({ ...p, apiVersion: s.config })) } as CredentialProviderConfig;
    current = await run.provider.restartKubelet(current, { credentialProvider: { ...current.spec.credentialProvider!, config: cfg as unknown as Record<string, unknown> } }, run.progress);
    const kubeletLog = join(current.logsDir, 'kubelet.log');
    const logStart = (await stat(kubeletLog).catch(() => ({ size: 0 }))).size;
    const pod = await runPod(current, { name: `down-api-${i}-${Date.now().toString(36)}`, image: IMAGE, pullPolicy: 'Always' });
    // "response refused" only when the kubelet itself says so during this step, else the pod's own failure.
    const refusedLine = pod.pull === 'failure' ? (await readFile(kubeletLog)).subarray(logStart).toString('utf8').split('\n').find((l) => l.includes('did not match expected apiVersion')) : undefined;
    observed.push(`${label}: pull ${pod.pull}${pod.pull === 'failure' ? (refusedLine ? ' (response refused)' : ` (${pod.failure ?? 'unknown'})`) : ''}`);
    evidence.push(...pod.evidence);
    if (!decoded.ok) evidence.push({ kind: 'text', label: `credprov's decoder on the ${label} answer`, text: decoded.error });
  }
  evidence.push(...(await kubeletEvidence(current, ['apiVersion from credential plugin response', 'did not match'])));
  return judge(RESPONSE_APIVERSION, {
    prediction: { value: predicted, model: 'credprov\'s response decoder (src/api/credentialprovider/response.ts, the one certify uses)', because: 'a response in another apiVersion than the provider entry\'s is refused, so its credentials never reach the pull' },
    observed,
    show: (v) => v.join('; '),
    evidence,
    startedAt,
  });
}
