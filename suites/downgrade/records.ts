// The downgrade paths that hinge on state the kubelet keeps: KEP-2535 pull
// records on disk (the gate off and on again; a one-minor kubelet downgrade)
// and the in-memory credential cache. Predictions chain credprov's
// ensure-secret-pulled model (src/model/ensure-secret-pulled.ts) through
// each pod, and the cache model for the plugin's execs.
import { kubeCacheRoot, listEntries } from '../../src/cluster/binaries/index.ts';
import { kubeApi } from '../../src/cluster/api.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { cacheDir } from '../../src/core/paths.ts';
import { CredentialCacheModel } from '../../src/model/credential-cache.ts';
import { ensureImageExists, type ContainerOutcome, type NodeImage, type PodCredentials } from '../../src/model/ensure-secret-pulled.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import type { CheckResult, Evidence } from '../../src/report/model.ts';
import { skipped } from '../../src/report/checks.ts';
import type { Fleet, LabRegistry, PodRun } from '../../src/run/lab.ts';
import { runPod } from '../../src/run/lab.ts';
import { judge } from '../../src/run/prediction.ts';
import type { SuiteRun } from '../../src/run/suite.ts';
import { parseKubeVersion } from '../../src/versions/table.ts';
import { ENSURE_GATE_TOGGLE, KUBELET_ONE_MINOR } from './checks.ts';

const GATE = 'KubeletEnsureSecretPulledImages';
const SECRET = 'down-pull-secret';

/** What the pod did, in the model's words. */
function outcomeOf(p: PodRun): ContainerOutcome | string {
  if (p.outcome.kind === 'completed') return 'Running';
  if (p.outcome.reason === 'ErrImageNeverPull') return 'ErrImageNeverPull';
  if (p.outcome.reason === 'ErrImagePull' || p.outcome.reason === 'ImagePullBackOff') return p.failure === 'unauthorized' ? 'ErrImagePull' : `ErrImagePull (${p.failure})`;
  return p.outcome.reason;
}

/** A dockerconfigjson secret whose one auth key is the image's own host (the registry stands in for it). */
async function createSecret(env: Environment, lab: LabRegistry, image: string): Promise<{ name: string; uid: string }> {
  const config = { auths: { [normalizeImage(image).registry]: { username: lab.user.username, password: lab.user.password, auth: Buffer.from(`${lab.user.username}:${lab.user.password}`).toString('base64') } } };
  const [stored] = await (await kubeApi(env)).apply([{ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: { name: SECRET, namespace: 'default' }, data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') } }]);
  return { name: SECRET, uid: stored?.metadata?.uid ?? '' };
}

const deleteSecret = (env: Environment) => kubeApi(env).then((api) => api.core.deleteNamespacedSecret({ name: SECRET, namespace: 'default' })).catch(() => undefined);

/**
 * A pod pulls `image` with a secret (a record naming it is written); with the gate off a pod without
 * credentials uses the image; with the gate on again the same pod must authenticate and fails.
 */
export async function ensureGateToggle(run: SuiteRun, env: Environment, lab: LabRegistry, image: string): Promise<{ result: CheckResult; env: Environment }> {
  const startedAt = new Date();
  const secret = await createSecret(env, lab, image);
  const tag = Date.now().toString(36);
  const withSecret: PodCredentials = { namespace: 'default', secrets: [{ name: secret.name, uid: secret.uid, auths: { [normalizeImage(image).registry]: { username: lab.user.username, password: lab.user.password, works: true } } }] };
  const none: PodCredentials = { namespace: 'default', secrets: [] };
  const steps = [
    { label: 'gate on, pod with the secret', gate: true, pod: withSecret },
    { label: 'gate off, pod without credentials', gate: false, pod: none },
    { label: 'gate on again, pod without credentials', gate: true, pod: none },
  ];
  // The whole chain is predicted before the first pod: each step starts from the node the previous one left.
  let node: NodeImage = { present: false, imageRef: `image-of-${image}` };
  const predicted = steps.map((s) => {
    const p = ensureImageExists({ image, pullPolicy: 'IfNotPresent', gateEnabled: s.gate, node, pod: s.pod });
    node = p.node;
    return { step: s.label, outcome: p.outcome, because: p.because };
  });
  // A chain whose steps all predict the same outcome tests nothing (e.g. credentials that never cover the image).
  if (new Set(predicted.map((p) => p.outcome)).size < 2) throw new Error(`degenerate scenario: every step predicts ${predicted[0]!.outcome} (${predicted[0]!.because})`);
  const observed: Array<{ step: string; outcome: string }> = [];
  const evidence: Evidence[] = [];
  let current = env;
  try {
    for (const [i, s] of steps.entries()) {
      current = await run.provider.restartKubelet(current, { featureGates: { [GATE]: s.gate } }, run.progress);
      const pod = await runPod(current, { name: `down-records-${i}-${tag}`, image, pullPolicy: 'IfNotPresent', ...(s.pod.secrets.length ? { imagePullSecrets: [secret.name] } : {}) });
      observed.push({ step: s.label, outcome: outcomeOf(pod) });
      evidence.push(...pod.evidence);
    }
  } finally {
    await deleteSecret(current);
    current = await run.provider.restartKubelet(current, { featureGates: {} }, run.progress).catch(() => current);
  }
  const result = judge(ENSURE_GATE_TOGGLE, {
    prediction: { value: predicted.map((p) => `${p.step}: ${p.outcome}`), model: 'ensure-secret-pulled model (src/model/ensure-secret-pulled.ts)', because: predicted.map((p) => `${p.step}: ${p.because}`).join(' | ') },
    observed: observed.map((o) => `${o.step}: ${o.outcome}`),
    show: (v) => v.join('; '),
    evidence,
    startedAt,
  });
  return { result, env: current };
}

/**
 * With records and a warm Registry cache entry on the newest kubelet, downgrade one minor: the older
 * kubelet honours the records (a pod without credentials must authenticate) and execs the plugin again
 * (its cache is in memory and starts empty).
 */
export async function kubeletOneMinor(run: SuiteRun, env: Environment, lab: LabRegistry, fleet: Fleet, images: { recorded: string; viaPlugin: string }): Promise<{ result: CheckResult; env: Environment }> {
  const older = `1.${parseKubeVersion(env.kubeVersion).minor - 1}`;
  const cached = (await listEntries(kubeCacheRoot(cacheDir(run.processEnv)), ['kubelet']).catch(() => [])).some((m) => parseKubeVersion(m.version).minor === parseKubeVersion(older).minor);
  if (!cached) return { result: skipped(KUBELET_ONE_MINOR, `no cached ${older} kubelet (build it: credprov binaries ensure --kube-version ${older} --only kubelet --skip-containerd)`), env };
  const startedAt = new Date();
  const secret = await createSecret(env, lab, images.recorded);
  const tag = Date.now().toString(36);
  const repo = normalizeImage(images.viaPlugin).repository;
  // Predictions: the record chain through the downgrade, and the cache of a kubelet that just started.
  const withSecret: PodCredentials = { namespace: 'default', secrets: [{ name: secret.name, uid: secret.uid, auths: { [normalizeImage(images.recorded).registry]: { username: lab.user.username, password: lab.user.password, works: true } } }] };
  const first = ensureImageExists({ image: images.recorded, pullPolicy: 'IfNotPresent', node: { present: false, imageRef: `image-of-${images.recorded}` }, pod: withSecret });
  const after = ensureImageExists({ image: images.recorded, pullPolicy: 'IfNotPresent', node: first.node, pod: { namespace: 'default', secrets: [] } });
  const newestCache = new CredentialCacheModel(0);
  const answer = { cacheKeyType: 'Registry', cacheDurationMs: 300_000 };
  const warm = [newestCache.pull(repo, 0, answer), newestCache.pull(repo, 1000, answer)];
  const olderCache = new CredentialCacheModel(0); // a restarted kubelet: nothing in memory
  const cold = olderCache.pull(repo, 2000, answer);
  const predicted = {
    beforeDowngrade: `plugin execs ${warm.filter((d) => d.invoked).length} for 2 pulls; record pull ${first.outcome}`,
    afterDowngrade: `plugin execs ${cold.invoked ? 1 : 0} for 1 pull; pod without credentials ${after.outcome}`,
  };
  let current = env;
  const evidence: Evidence[] = [];
  const execs = async (since: string) => (await fleet.invocations()).filter((r) => r.time >= since && r.image === repo).length;
  try {
    const t0 = new Date().toISOString();
    const p1 = await runPod(current, { name: `down-minor-rec-${tag}`, image: images.recorded, pullPolicy: 'IfNotPresent', imagePullSecrets: [secret.name] });
    const p2 = await runPod(current, { name: `down-minor-a-${tag}`, image: images.viaPlugin, pullPolicy: 'Always' });
    const p3 = await runPod(current, { name: `down-minor-b-${tag}`, image: images.viaPlugin, pullPolicy: 'Always' });
    const before = await execs(t0);
    current = await run.provider.restartKubelet(current, { kubelet: { version: older } }, run.progress);
    const t1 = new Date().toISOString();
    const p4 = await runPod(current, { name: `down-minor-c-${tag}`, image: images.viaPlugin, pullPolicy: 'Always' });
    const p5 = await runPod(current, { name: `down-minor-rec2-${tag}`, image: images.recorded, pullPolicy: 'IfNotPresent' });
    evidence.push(...[p1, p2, p3, p4, p5].flatMap((p) => p.evidence), { kind: 'data', label: 'kubelet versions', data: { before: env.kubeletVersion ?? env.kubeVersion, after: current.kubeletVersion } });
    const observed = {
      beforeDowngrade: `plugin execs ${before} for 2 pulls; record pull ${outcomeOf(p1)}`,
      afterDowngrade: `plugin execs ${await execs(t1)} for 1 pull; pod without credentials ${outcomeOf(p5)}`,
    };
    const result = judge(KUBELET_ONE_MINOR, {
      prediction: { value: predicted, model: 'ensure-secret-pulled model and credential cache model', because: `${after.because}; ${cold.reason}` },
      observed,
      show: (v) => `before: ${v.beforeDowngrade}; after (${current.kubeletVersion}): ${v.afterDowngrade}`,
      evidence,
      actor: `the kubelets (${env.kubeletVersion ?? env.kubeVersion} → ${current.kubeletVersion})`,
      startedAt,
    });
    return { result, env: current };
  } finally {
    await deleteSecret(current);
    current = await run.provider.restartKubelet(current, { kubelet: { version: undefined } }, run.progress).catch(() => current);
  }
}
