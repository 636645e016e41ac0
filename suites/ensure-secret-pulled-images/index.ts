// The ensure-secret-pulled-images suite: KEP-2535 on the real kubelet.
//
// Setup: one htpasswd registry, an image per cell, two recording fake
// providers (a node-mode one, and a service-account-mode one with
// tokenAttributes, its audience granted to nodes by RBAC), a namespace with
// the secrets `right`, `right-copy` (the same credentials) and `wrong`, and
// service accounts sa-a and sa-b. Half the cells' images are imported into
// containerd behind the kubelet's back ("preloaded"); the other half are
// pulled by first pods (the right secret, or sa-a through the SA-mode
// provider) while the first policy is active.
//
// Then, policy by policy (a kubelet restart between two), every cell's second
// pod runs at once. Each cell's outcome, event, plugin execs and record are
// predicted first by src/model/ensure-secret-pulled.ts (the kubelet's
// EnsureImageExists/MustAttemptImagePull as of v1.37.1) and then observed.
// Between the first and second policy, one image is removed with ctr to see
// whether its record is pruned, and the restart itself is checked.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { busyboxImage } from '../../registry/image/test-images.ts';
import { kubeApi } from '../../src/cluster/api.ts';
import { layoutFor } from '../../src/cluster/local/layout.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { allowNodesTokenAudience } from '../../src/cluster/rbac.ts';
import { errorMessage } from '../../src/core/errors.ts';
import { step } from '../../src/core/progress.ts';
import {
  afterRestart, ensureImageExists, MUST_PULL_RESULTS, mustPullCounts, pruneOnRemoval, recordApiVersion, recordFileName,
  RECORD_DIR_MODE, RECORD_FILE_MODE, type EnsurePrediction, type NodeImage, type PodProvider, type PulledRecord,
} from '../../src/model/ensure-secret-pulled.ts';
import { skipped } from '../../src/report/checks.ts';
import type { Check, CheckResult, Evidence } from '../../src/report/model.ts';
import { answer, kubeletEvidence, prepareFleet, startLabRegistry, type Fleet, type LabRegistry } from '../../src/run/lab.ts';
import { judge } from '../../src/run/prediction.ts';
import type { PreparedSuite, Suite, SuiteRun, SuiteSetup } from '../../src/run/suite.ts';
import { allowlistOf, buildCells, firstPod, PHASES, providerPatterns, secondPod, type Cell, type Identities, type Layout, type Phase } from './cells.ts';
import { ESPI_CHECKS, MATRIX, METRICS, PLUGIN_PRESENT, PRUNE, RECORDS_CONTENT, RECORDS_FORMAT, RESTART } from './checks.ts';
import { multiImageArchive } from './images.ts';
import { importImages, IntentWatcher, removeImagesNamed, MUSTPULL, ONDISK_INTENTS, ONDISK_RECORDS, readRecord, readRecords, removeImage, scrapeMetrics, type RecordsListing } from './node.ts';
import { deletePods, runPods, type ContainerRun, type PodPlan } from './pods.ts';

const MODEL = 'KEP-2535 model (src/model/ensure-secret-pulled.ts: kubelet v1.37.1 image_manager.go + pullmanager)';
const NODE_PROVIDER = 'credprov-espi-node';
const SA_PROVIDER = 'credprov-espi-sa';
/** How long the suite waits after removing an image before looking at its record again. */
const PRUNE_WAIT_MS = 5_000;
const FIRST_POD_CONTAINERS = 12;

export const ensureSecretPulledImagesSuite: Suite = {
  name: 'ensure-secret-pulled-images',
  summary: 'KEP-2535 on the real kubelet: per imagePullCredentialsVerificationPolicy, IfNotPresent/Never × the second pod\'s credentials (none, same secret, same credentials in another secret, wrong secret, provider, SA-mode provider with the same or another SA) × pulled by the kubelet or preloaded; records, metrics, restart and pruning',
  checks: ESPI_CHECKS,
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const id = randomBytes(3).toString('hex');
    let lab: LabRegistry | undefined;
    let fleet: Fleet | undefined;
    const live: { env?: Environment; namespace?: string; rbac?: string } = {};
    const cleanup = async () => {
      if (live.env) await removeNamespaceAndGrant(live.env, live.namespace, live.rbac);
      live.namespace = undefined;
      live.rbac = undefined;
      await lab?.stop({ keepLogAs: 'registry.log' });
      lab = undefined;
      await fleet?.redactArtifacts();
    };
    try {
      lab = await startLabRegistry(ctx, 'espi');
      const layout: Layout = { host: lab.registry.host, root: `espi-${id}` };
      const base = await busyboxImage({ marker: `credprov-espi-${id}` });
      const cells = buildCells(layout, base);
      const l = lab;
      const client = l.registry.client(l.registry.admin);
      await step(ctx.progress, `push ${cells.length} cell images`, () => forEachLimit(cells, 8, (c) => client.push(c.image, c.repo, c.tag).then(() => undefined)));
      const right = { username: lab.user.username, password: lab.user.password };
      const audience = `credprov-espi-${id}`;
      const np = providerPatterns(layout, 'np');
      const sa = providerPatterns(layout, 'sa');
      fleet = await prepareFleet(ctx, [
        { name: NODE_PROVIDER, matchImages: np, scenario: answer(np, { [layout.host]: right }) },
        {
          name: SA_PROVIDER, matchImages: sa,
          tokenAttributes: { serviceAccountTokenAudience: audience, cacheType: 'ServiceAccount', requireServiceAccount: true },
          scenario: { ...answer(sa, { [layout.host]: right }), serviceAccount: { requireToken: true, audience } },
        },
      ]);
      const providers: PodProvider[] = [
        { name: NODE_PROVIDER, matchImages: np, auths: { [layout.host]: { ...right, works: true } } },
        { name: SA_PROVIDER, matchImages: sa, auths: { [layout.host]: { ...right, works: true } }, serviceAccountMode: true, requireServiceAccount: true },
      ];
      const f = fleet;
      return {
        // registryPullQPS 0 (no limit): the first pulls come faster than the default 5/s, and a
        // "pull QPS exceeded" ErrImagePull is the harness's doing, not KEP-2535's.
        spec: { ...f.spec, kubelet: { config: phaseConfig({ registryPullQPS: 0 }, PHASES[0]!, allowlistOf(layout)) } },
        needs: ['installPlugins', 'hostRegistries', 'restartKubelet'],
        run: async (run) => {
          live.env = run.environment;
          live.namespace = `credprov-espi-${id}`;
          live.rbac = `credprov-espi-${id}`;
          try {
            return await runMatrix(run, { lab: l, fleet: f, layout, cells, namespace: live.namespace, rbac: live.rbac, audience, providers });
          } finally {
            // This run's images (their IDs are unique to the run); their records stay, as the prune check shows they would.
            if (run.environment.containerd) await removeImagesNamed(run.environment, `/${layout.root}/`).catch(() => 0);
            await removeNamespaceAndGrant(run.environment, live.namespace, live.rbac);
            live.namespace = undefined;
            live.rbac = undefined;
          }
        },
        cleanup,
      };
    } catch (err) {
      await cleanup();
      throw err;
    }
  },
};

/** The kubelet config of a phase: the current config without the two KEP-2535 fields, then the phase's. */
export function phaseConfig(current: Record<string, unknown>, phase: Phase, allowlist: string[]): Record<string, unknown> {
  const { imagePullCredentialsVerificationPolicy: _p, preloadedImagesVerificationAllowlist: _a, ...rest } = current;
  return {
    ...rest,
    ...(phase.set ? { imagePullCredentialsVerificationPolicy: phase.policy } : {}),
    ...(phase.allowlist ? { preloadedImagesVerificationAllowlist: allowlist } : {}),
  };
}

interface Fixture {
  lab: LabRegistry;
  fleet: Fleet;
  layout: Layout;
  cells: Cell[];
  namespace: string;
  rbac: string;
  audience: string;
  providers: PodProvider[];
}

const octal = (m: number) => `0${m.toString(8)}`;
const minorOf = (v: string) => Number(/^v?\d+\.(\d+)/.exec(v)?.[1] ?? 0);

interface CellResult {
  cell: Cell;
  predicted: EnsurePrediction;
  observed?: ContainerRun;
  invocations: number;
  /** The service accounts the SA-mode provider's tokens named (sub), for SA cells. */
  tokenSubjects: string[];
  recordPredicted?: PulledRecord;
  recordObserved?: Record<string, unknown>;
}

async function runMatrix(ctx: SuiteRun, f: Fixture): Promise<CheckResult[]> {
  let env = ctx.environment;
  if (!env.containerd || env.provider !== 'local') {
    return ESPI_CHECKS.map((c) => skipped(c, `needs the local provider (containerd and the kubelet's root on this host); environment ${env.name} is ${env.provider}`));
  }
  const api = await kubeApi(env);
  const ns = f.namespace;
  const host = f.layout.host;
  const imageManager = join(layoutFor(env.name, ctx.processEnv).kubeletRoot, 'image_manager');
  const kubeletMinor = minorOf(env.kubeletVersion ?? env.kubeVersion);
  const allowlist = allowlistOf(f.layout);
  const results = new Map<Check, CheckResult>();
  const harness = (check: Check, err: unknown) => results.set(check, { ...skipped(check, ''), status: 'failed', cause: 'harness', message: `harness error: ${errorMessage(err)}` });
  await f.lab.serveAs(env, host);

  // ---- the namespace: secrets, service accounts, the audience grant ----------------
  const right = { username: f.lab.user.username, password: f.lab.user.password };
  const wrong = { username: f.lab.user.username, password: f.lab.wrongPassword };
  await api.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'app.kubernetes.io/managed-by': 'credprov' } } },
  ]);
  await api.apply([
    dockerSecret(ns, 'right', host, right),
    dockerSecret(ns, 'right-copy', host, right),
    dockerSecret(ns, 'wrong', host, wrong),
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa-a', namespace: ns } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa-b', namespace: ns } },
  ]);
  await allowNodesTokenAudience(env, f.audience, { name: f.rbac });
  const read = {
    secret: (name: string) => api.core.readNamespacedSecret({ name, namespace: ns }),
    serviceaccount: (name: string) => api.core.readNamespacedServiceAccount({ name, namespace: ns }),
  };
  // The default service account and the root CA come from the controller-manager, some time after the namespace.
  const uid = (kind: keyof typeof read, name: string) => poll(`${kind} ${ns}/${name}`, 30_000, async () =>
    (await read[kind](name).catch(() => undefined))?.metadata?.uid);
  await poll(`kube-root-ca.crt in ${ns}`, 30_000, () => api.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: ns }).then(() => true, () => undefined));
  const ids: Identities = {
    namespace: ns, host, right, wrong, providers: f.providers,
    secretUids: { right: await uid('secret', 'right'), 'right-copy': await uid('secret', 'right-copy'), wrong: await uid('secret', 'wrong') },
    saUids: { default: await uid('serviceaccount', 'default'), 'sa-a': await uid('serviceaccount', 'sa-a'), 'sa-b': await uid('serviceaccount', 'sa-b') },
  };

  // ---- the node before: preloaded images in, first pulls done -----------------------
  const imageRefOf = (c: Cell) => c.image.config.digest;
  const before = await readRecords(imageManager);
  const baselineRecords = before.pulled.length;
  const preloaded = f.cells.filter((c) => c.provenance === 'preloaded');
  await step(ctx.progress, `preload ${preloaded.length} images into containerd`, () => importImages(env, multiImageArchive(preloaded.map((c) => ({ image: c.image, ref: c.ref }))), join(ctx.artifactsDir, 'preloaded.tar')));

  const watcher = new IntentWatcher(join(imageManager, 'pulling'));
  watcher.start();
  const kubeletCells = f.cells.filter((c) => c.provenance === 'kubelet');
  const firstPredictions = new Map<Cell, EnsurePrediction>();
  for (const c of kubeletCells) {
    firstPredictions.set(c, ensureImageExists({ policy: PHASES[0]!.policy, image: c.ref, pullPolicy: 'IfNotPresent', node: { present: false, imageRef: imageRefOf(c) }, pod: firstPod(c, ids).creds }));
  }
  const firstPlans: PodPlan[] = [];
  for (const group of [kubeletCells.filter((c) => c.kind !== 'sa'), kubeletCells.filter((c) => c.kind === 'sa')]) {
    for (let i = 0; i < group.length; i += FIRST_POD_CONTAINERS) {
      const chunk = group.slice(i, i + FIRST_POD_CONTAINERS);
      firstPlans.push({ name: `first-${chunk[0]!.kind === 'sa' ? 'sa' : 'secret'}-${i / FIRST_POD_CONTAINERS}`, containers: chunk.map((c) => ({ name: c.pod, image: c.ref, pullPolicy: 'IfNotPresent' })), ...firstPod(chunk[0]!, ids).spec });
    }
  }
  const firstRuns = await step(ctx.progress, `first pulls: ${kubeletCells.length} images in ${firstPlans.length} pods`, () => runPods(env, ns, 'first', firstPlans, 150_000));
  await deletePods(env, ns, 'first');
  await sleep(300);
  await watcher.stop();
  const firstOutcome = new Map<string, string>();
  for (const p of firstPlans) for (const c of p.containers) firstOutcome.set(c.name, firstRuns.get(p.name)?.containers.get(c.name)?.outcome ?? 'no outcome');
  const firstFailed = kubeletCells.filter((c) => firstOutcome.get(c.pod) !== firstPredictions.get(c)!.outcome);
  const afterFirst = await readRecords(imageManager);

  // Each cell's node state as the model sees it.
  const nodeOf = new Map<Cell, NodeImage>();
  for (const c of f.cells) nodeOf.set(c, c.provenance === 'preloaded' ? { present: true, imageRef: imageRefOf(c) } : firstPredictions.get(c)!.node);
  let predictedFiles = baselineRecords + [...firstPredictions.values()].filter((p) => p.recordCreated).length;

  // ---- RECORDS-FORMAT (after the first pulls) --------------------------------------
  try {
    results.set(RECORDS_FORMAT, recordsFormat({ listing: afterFirst, watcher, kubeletCells, preloaded, imageRefOf, kubeletMinor, firstFailed }));
  } catch (err) {
    harness(RECORDS_FORMAT, err);
  }

  // ---- the policies ------------------------------------------------------------------
  const all: CellResult[] = [];
  const metricsRows: Array<{ policy: string; predicted: Record<string, string | number>; observed: Record<string, string | number> }> = [];
  let restartObserved: unknown;
  let restartPredicted: unknown;
  let restartEvidence: Evidence[] = [];
  let restartBecause = '';
  let pruneCell: Cell | undefined;
  let pruneObserved: { afterWait?: string; afterRestart?: string; reimportedPod?: string } = {};
  let prunePrediction: ReturnType<typeof pruneOnRemoval> | undefined;
  let prunePodPredicted: EnsurePrediction | undefined;
  let pruneEvidence: Evidence[] = [];

  for (const [i, phase] of PHASES.entries()) {
    const phaseCells = f.cells.filter((c) => c.phase === phase);
    const startedAt = new Date();
    let writesSinceRestart = i === 0;
    const extraPredictions: EnsurePrediction[] = [];
    const extraPlans: PodPlan[] = [];

    if (i === 1) {
      // Pruning: remove one image the first policy's cells are done with, wait, restart.
      pruneCell = f.cells.find((c) => c.phase === PHASES[0] && c.provenance === 'kubelet' && c.source === 'same-secret' && c.pullPolicy === 'IfNotPresent')!;
      const file = recordFileName(imageRefOf(pruneCell));
      const kubeletYaml = await readFile(layoutFor(env.name, ctx.processEnv).kubeletConfig, 'utf8').catch(() => '');
      const num = (k: string) => { const m = new RegExp(`^${k}:\\s*(\\S+)`, 'm').exec(kubeletYaml); return m ? m[1] : undefined; };
      prunePrediction = pruneOnRemoval({ ...(num('imageGCHighThresholdPercent') ? { imageGCHighThresholdPercent: Number(num('imageGCHighThresholdPercent')) } : {}), ...(num('imageMaximumGCAge') ? { imageMaximumGCAge: num('imageMaximumGCAge')! } : {}) });
      const removed = await removeImage(env, pruneCell.image.manifest.digest);
      await sleep(PRUNE_WAIT_MS);
      pruneObserved.afterWait = (await readRecord(imageManager, file)) ? 'kept' : 'pruned';
      pruneEvidence.push({ kind: 'data', label: `ctr images rm (image of cell ${PHASES[0]!.policy} ${pruneCell.id})`, data: { removed, recordFile: join(imageManager, 'pulled', file), kubeletConfig: { imageGCHighThresholdPercent: num('imageGCHighThresholdPercent') ?? '(default 85)', imageMaximumGCAge: num('imageMaximumGCAge') ?? '(default 0s)' } } });
    }

    if (i > 0) {
      // ---- restart into the next policy ----
      const snapshot = await readRecords(imageManager);
      const r = afterRestart({ kubeletMinor, recordVersions: snapshot.pulled.map((x) => String(x.json?.apiVersion ?? '')), intents: snapshot.pulling.map((x) => ({ image: String(x.json?.image ?? ''), imagePresent: true })) });
      env = await ctx.provider.restartKubelet(env, { kubelet: { config: phaseConfig(env.spec.kubelet.config, phase, allowlist) } }, ctx.progress);
      const metricsNow = await scrapeMetrics(env);
      const after = await readRecords(imageManager);
      if (i === 1) {
        const byName = new Map(after.pulled.map((x) => [x.name, x.text]));
        restartPredicted = { recordsDeleted: r.recordsDeleted, recordsRewritten: r.rewritten, intentsConverted: r.intentsConverted, ondiskGauges: r.gauges };
        restartObserved = {
          recordsDeleted: snapshot.pulled.filter((x) => !byName.has(x.name)).length,
          recordsRewritten: snapshot.pulled.filter((x) => byName.has(x.name) && byName.get(x.name) !== x.text).length,
          intentsConverted: snapshot.pulling.length - after.pulling.length,
          ondiskGauges: { pulledRecords: metricsNow.get(ONDISK_RECORDS), pullIntents: metricsNow.get(ONDISK_INTENTS) },
        };
        restartBecause = r.because;
        restartEvidence = [{ kind: 'data', label: 'pulled records before / after the restart', data: { before: snapshot.pulled.length, after: after.pulled.length, files: after.pulled.map((x) => x.name) } }];
        pruneObserved.afterRestart = after.pulled.some((x) => x.name === recordFileName(imageRefOf(pruneCell!))) ? 'kept' : 'pruned';
        // Re-imported behind the kubelet's back: still "pulled by the kubelet" while its record lives.
        await importImages(env, multiImageArchive([{ image: pruneCell!.image, ref: pruneCell!.ref }]), join(ctx.artifactsDir, 'reimport.tar'));
        const record = after.pulled.find((x) => x.name === recordFileName(imageRefOf(pruneCell!)));
        const node: NodeImage = { present: true, imageRef: imageRefOf(pruneCell!), ...(record ? { record: nodeOf.get(pruneCell!)!.record! } : {}) };
        prunePodPredicted = ensureImageExists({ policy: phase.set ? phase.policy : undefined, image: pruneCell!.ref, pullPolicy: 'Never', node, pod: secondPod({ ...pruneCell!, source: 'none' }, ids).creds });
        extraPredictions.push(prunePodPredicted);
        extraPlans.push({ name: `${phase.code}-reimported`, containers: [{ name: 'main', image: pruneCell!.ref, pullPolicy: 'Never' }] });
      }
    }

    // ---- predict every cell, then run them all ----
    const predictions = new Map<Cell, EnsurePrediction>();
    for (const c of phaseCells) {
      predictions.set(c, ensureImageExists({ policy: phase.set ? phase.policy : undefined, allowlist: phase.allowlist ? allowlist : [], image: c.ref, pullPolicy: c.pullPolicy, node: nodeOf.get(c)!, pod: secondPod(c, ids).creds }));
    }
    const metricsBefore = await scrapeMetrics(env);
    const plans: PodPlan[] = [...phaseCells.map((c) => ({ name: c.pod, containers: [{ name: 'main', image: c.ref, pullPolicy: c.pullPolicy }], ...secondPod(c, ids).spec })), ...extraPlans];
    const runs = await step(ctx.progress, `${phase.policy}: ${plans.length} pods`, () => runPods(env, ns, phase.code, plans, 90_000));
    await deletePods(env, ns, phase.code);
    // Retries of failing pods may still be pulling: the intents gauge is read once no pull is in flight.
    await poll('no pull in flight (empty image_manager/pulling)', 30_000, async () => ((await readRecords(imageManager)).pulling.length === 0 ? true : undefined));
    await sleep(500);
    const metricsAfter = await scrapeMetrics(env);
    const invocations = (await f.fleet.invocations().catch(() => [])).filter((x) => Date.parse(x.time) >= startedAt.getTime());

    for (const c of phaseCells) {
      const p = predictions.get(c)!;
      const mine = invocations.filter((x) => x.request.image === `${host}/${c.repo}` || x.image === `${host}/${c.repo}`);
      const file = recordFileName(imageRefOf(c));
      const recordObserved = await readRecord(imageManager, file);
      all.push({
        cell: c, predicted: p, ...(runs.get(c.pod) ? { observed: runs.get(c.pod)!.containers.get('main')! } : {}),
        invocations: mine.length, tokenSubjects: [...new Set(mine.map((x) => x.tokenSub ?? '').filter(Boolean))],
        ...(p.node.record ? { recordPredicted: p.node.record } : {}), ...(recordObserved ? { recordObserved } : {}),
      });
      nodeOf.set(c, p.node);
      if (p.recordWritten) writesSinceRestart = true;
      if (p.recordCreated) predictedFiles += 1;
    }
    if (prunePodPredicted && i === 1) {
      const run = runs.get(`${phase.code}-reimported`)?.containers.get('main');
      pruneObserved.reimportedPod = run?.outcome ?? 'no outcome';
      pruneEvidence.push({ kind: 'event', label: `events of pod ${ns}/${phase.code}-reimported (${pruneCell!.ref}, Never, no secret)`, data: run?.events ?? [] });
    }

    // ---- MATRIX-<policy> ----
    const check = MATRIX[phase.policy];
    try {
      const mine = all.filter((r) => r.cell.phase === phase);
      const show = (x: EnsurePrediction | ContainerRun | undefined) => (x ? `${x.outcome} (${'event' in x && x.event ? x.event.kind : 'no event'})` : 'no outcome');
      const predicted = Object.fromEntries(mine.map((r) => [r.cell.id, show(r.predicted)]));
      const observed = Object.fromEntries(mine.map((r) => [r.cell.id, show(r.observed)]));
      const wrongCells = mine.filter((r) => predicted[r.cell.id] !== observed[r.cell.id]);
      const counts = (m: Record<string, string>) => Object.entries(Object.values(m).reduce<Record<string, number>>((a, v) => ({ ...a, [v.split(' ')[0]!]: (a[v.split(' ')[0]!] ?? 0) + 1 }), {})).map(([k, n]) => `${n} ${k}`).join(', ');
      let r = judge(check, {
        prediction: {
          value: predicted, model: MODEL,
          because: `${phase.policy}${phase.set ? '' : ' (unset: the default)'}${phase.allowlist ? ` with allowlist ${allowlist.join(', ')}` : ''}: ${counts(predicted)} predicted from provenance, record and the pod's credentials (matrix evidence has each cell's reason)`,
        },
        observed, startedAt,
        show: (v) => (v === observed && wrongCells.length ? `${counts(v)}; ${wrongCells.length} cell(s) differ: ${wrongCells.slice(0, 4).map((x) => `${x.cell.id} ${observed[x.cell.id]} (predicted ${predicted[x.cell.id]})`).join('; ')}` : counts(v)),
        evidence: [{ kind: 'data', label: 'matrix', data: matrixRows(mine) }],
      });
      if (wrongCells.length) {
        r = { ...r, evidence: [...r.evidence, ...wrongCells.slice(0, 6).map((x): Evidence => ({ kind: 'event', label: `events of pod ${ns}/${x.cell.pod} (${x.cell.id})`, data: x.observed?.events ?? [] })), ...(await kubeletEvidence(env, wrongCells.slice(0, 6).map((x) => x.cell.pod)))] };
      }
      results.set(check, r);
    } catch (err) {
      harness(check, err);
    }

    // ---- metrics of this phase ----
    const counts = mustPullCounts([...phaseCells.map((c) => predictions.get(c)!), ...extraPredictions]);
    const retried = [...phaseCells.map((c) => predictions.get(c)!), ...extraPredictions].filter((p) => p.outcome !== 'Running').length;
    const delta = (k: string) => (metricsAfter.get(k) ?? 0) - (metricsBefore.get(k) ?? 0);
    metricsRows.push({
      policy: phase.policy,
      predicted: {
        ...Object.fromEntries(MUST_PULL_RESULTS.map((k): [string, string | number] => [k, k === 'mustAuthenticate' && retried > 0 ? `>=${counts[k]}` : counts[k]])),
        ondisk_pulledrecords: writesSinceRestart ? predictedFiles : 0,
        ondisk_pullintents: 0,
      },
      observed: {
        ...Object.fromEntries(MUST_PULL_RESULTS.map((k) => [k, delta(MUSTPULL(k))])),
        ondisk_pulledrecords: metricsAfter.get(ONDISK_RECORDS) ?? 'absent',
        ondisk_pullintents: metricsAfter.get(ONDISK_INTENTS) ?? 'absent',
      },
    });
  }

  // ---- PLUGIN-INVOKED-FOR-PRESENT-IMAGE ----
  try {
    const providerCells = all.filter((r) => r.cell.kind !== 'x');
    const key = (r: CellResult) => `${r.cell.phase.policy} ${r.cell.id}`;
    const predicted = Object.fromEntries(providerCells.map((r) => [key(r), r.predicted.providersInvoked.length > 0 ? 'exec\'d' : 'not exec\'d']));
    const observed = Object.fromEntries(providerCells.map((r) => [key(r), r.invocations > 0 ? 'exec\'d' : 'not exec\'d']));
    const execdPresentNoPull = providerCells.filter((r) => r.predicted.providersInvoked.length > 0 && !r.predicted.pull).length;
    const saWrong = providerCells.filter((r) => r.cell.kind === 'sa' && r.tokenSubjects.some((s) => s !== `system:serviceaccount:${ns}:${r.cell.source === 'provider-sa-same' ? 'sa-a' : 'sa-b'}`));
    const agreeCount = (m: Record<string, string>) => `${Object.values(m).filter((v) => v === 'exec\'d').length} of ${providerCells.length} exec'd`;
    let r = judge(PLUGIN_PRESENT, {
      prediction: {
        value: predicted, model: MODEL,
        because: `the pod's credentials are looked up lazily, at most once per EnsureImageExists: for a present image only to match a record naming secrets/service accounts under a verifying policy (${execdPresentNoPull} cells exec a provider without pulling, e.g. Never + a SA-mode provider), or right before a pull; never for an allowed image or a record-less image with Never`,
      },
      observed, startedAt: new Date(),
      show: (v) => `${agreeCount(v)}${v === observed && saWrong.length ? `; SA-mode tokens for the wrong service account in ${saWrong.map(key).join(', ')}` : ''}`,
      evidence: [{ kind: 'data', label: 'provider cells: predicted and observed execs', data: providerCells.map((r) => ({ cell: key(r), provider: r.cell.kind === 'sa' ? SA_PROVIDER : NODE_PROVIDER, predicted: predicted[key(r)], execs: r.invocations, tokenSubjects: r.tokenSubjects, pull: r.predicted.pull, check: r.predicted.check ?? '-' })) }],
    });
    if (saWrong.length && r.status === 'passed') r = { ...r, status: 'failed', cause: 'subject', message: `${r.message}; but the SA-mode provider got tokens for the wrong service account in ${saWrong.map(key).join(', ')}` };
    results.set(PLUGIN_PRESENT, r);
  } catch (err) {
    harness(PLUGIN_PRESENT, err);
  }

  // ---- RECORDS-CONTENT ----
  try {
    const strip = (x: Record<string, unknown> | undefined) => (x ? { imageRef: x.imageRef, credentialMapping: x.credentialMapping ?? {} } : 'no record');
    const key = (r: CellResult) => `${r.cell.phase.policy} ${r.cell.id}`;
    const predicted = Object.fromEntries(all.map((r) => [key(r), r.recordPredicted ? { imageRef: r.recordPredicted.imageRef, credentialMapping: r.recordPredicted.credentialMapping } : 'no record']));
    const observed = Object.fromEntries(all.map((r) => [key(r), strip(r.recordObserved)]));
    const differ = Object.keys(predicted).filter((k) => JSON.stringify(sortKeys(predicted[k])) !== JSON.stringify(sortKeys(observed[k])));
    results.set(RECORDS_CONTENT, judge(RECORDS_CONTENT, {
      prediction: { value: predicted, model: MODEL, because: 'the first pull records its secret (or SA-mode service account); a hash match through another secret adds that secret; a re-pull merges the credential that worked (a node-mode provider\'s as nodePodsAccessible, which replaces the secrets); preloaded images get a record only when re-pulled' },
      observed, startedAt: new Date(),
      agree: (a, b) => Object.keys(a).every((k) => JSON.stringify(sortKeys(a[k])) === JSON.stringify(sortKeys(b[k]))),
      show: (v) => (v === observed && differ.length ? `${differ.length} of ${all.length} records differ: ${differ.slice(0, 3).map((k) => `${k}: ${JSON.stringify(observed[k])}`).join('; ')}` : `${all.length} cell records (${Object.values(v).filter((x) => x === 'no record').length} without one)`),
      evidence: [{ kind: 'data', label: 'records that differ (predicted, observed)', data: differ.map((k) => ({ cell: k, predicted: predicted[k], observed: observed[k] })) }],
    }));
  } catch (err) {
    harness(RECORDS_CONTENT, err);
  }

  // ---- METRICS ----
  try {
    const predicted = Object.fromEntries(metricsRows.map((m) => [m.policy, m.predicted]));
    const observed = Object.fromEntries(metricsRows.map((m) => [m.policy, m.observed]));
    results.set(METRICS, judge(METRICS, {
      prediction: { value: predicted, model: MODEL, because: 'one mustpull check per EnsureImageExists of a present image with IfNotPresent/Never (a failing pod\'s retries add mustAuthenticate only); the ondisk gauges are set to the file count on every write or delete, and read 0 after a restart until one' },
      observed, startedAt: new Date(),
      agree: (p, o) => Object.keys(p).every((policy) => Object.entries(p[policy]!).every(([k, v]) => (typeof v === 'string' ? Number(o[policy]?.[k] ?? -1) >= Number(v.slice(2)) : o[policy]?.[k] === v))),
      show: (v) => Object.entries(v).map(([policy, m]) => `${policy}: ${Object.entries(m).map(([k, n]) => `${k.replace(/^credential/, '')}=${n}`).join(' ')}`).join('; '),
      evidence: [{ kind: 'data', label: 'matrix', data: metricsRows.flatMap((m) => Object.keys(m.predicted).map((k) => ({ policy: m.policy, metric: k, predicted: String(m.predicted[k]), observed: String(m.observed[k] ?? 'absent') }))) }],
    }));
  } catch (err) {
    harness(METRICS, err);
  }

  // ---- RESTART and PRUNE ----
  if (restartPredicted) {
    results.set(RESTART, judge(RESTART, {
      prediction: { value: restartPredicted, model: MODEL, because: restartBecause },
      observed: restartObserved, startedAt: new Date(),
      show: (v) => JSON.stringify(v),
      evidence: restartEvidence,
    }));
  }
  if (prunePrediction && prunePodPredicted && pruneCell) {
    results.set(PRUNE, judge(PRUNE, {
      prediction: {
        value: { afterWait: prunePrediction.afterWait, afterRestart: prunePrediction.afterRestart, reimportedPod: prunePodPredicted.outcome },
        model: MODEL,
        because: `${prunePrediction.because}; the re-imported image then has a record, so under the default policy a pod without credentials and Never gets ${prunePodPredicted.outcome} (${prunePodPredicted.because})`,
      },
      observed: pruneObserved, startedAt: new Date(),
      show: (v) => `record ${v.afterWait} after ${PRUNE_WAIT_MS / 1000}s, ${v.afterRestart} after a kubelet restart; re-imported image, Never, no secret: ${v.reimportedPod}`,
      evidence: pruneEvidence,
    }));
  }

  return ESPI_CHECKS.map((c) => results.get(c) ?? { ...skipped(c, 'not reached'), status: 'failed' as const, cause: 'harness' as const, message: 'harness error: the check was not reached' });
}

// ---- RECORDS-FORMAT -------------------------------------------------------------------

function recordsFormat(o: {
  listing: RecordsListing; watcher: IntentWatcher; kubeletCells: Cell[]; preloaded: Cell[]; imageRefOf: (c: Cell) => string; kubeletMinor: number; firstFailed: Cell[];
}): CheckResult {
  const apiVersion = recordApiVersion(o.kubeletMinor);
  const byName = new Map(o.listing.pulled.map((x) => [x.name, x]));
  // This run's records only: other suites' (or older kubelets') records share the directory.
  const ours = new Set([...o.kubeletCells, ...o.preloaded].map((c) => recordFileName(o.imageRefOf(c))));
  const mine = o.listing.pulled.filter((x) => ours.has(x.name));
  const uniq = (xs: string[]) => [...new Set(xs)].sort();
  const intents = [...o.watcher.caught.entries()];
  const predicted = {
    dirModes: { image_manager: octal(RECORD_DIR_MODE), pulled: octal(RECORD_DIR_MODE), pulling: octal(RECORD_DIR_MODE) },
    kubeletCellsWithoutRecord: [] as string[],
    preloadedCellsWithRecord: [] as string[],
    recordKinds: [`ImagePulledRecord ${apiVersion}`],
    recordModes: [octal(RECORD_FILE_MODE)],
    recordsNamedAfterOtherRef: [] as string[],
    intentsCaughtInFlight: 'some',
    intentKinds: [`ImagePullIntent ${apiVersion}`],
    intentModes: [octal(RECORD_FILE_MODE)],
    intentsNamedAfterOtherImage: [] as string[],
    intentsLeftAfterPulls: 0,
    tmpLeft: [] as string[],
  };
  const observed = {
    dirModes: Object.fromEntries(Object.entries(o.listing.dirModes).map(([k, m]) => [k, octal(m)])),
    kubeletCellsWithoutRecord: o.kubeletCells.filter((c) => !byName.has(recordFileName(o.imageRefOf(c)))).map((c) => `${c.phase.policy} ${c.id}`),
    preloadedCellsWithRecord: o.preloaded.filter((c) => byName.has(recordFileName(o.imageRefOf(c)))).map((c) => `${c.phase.policy} ${c.id}`),
    recordKinds: uniq(mine.map((x) => (x.json ? `${String(x.json.kind)} ${String(x.json.apiVersion)}` : `unparsable: ${x.parseError}`))),
    recordModes: uniq(mine.map((x) => octal(x.mode))),
    recordsNamedAfterOtherRef: mine.filter((x) => x.json && recordFileName(String(x.json.imageRef)) !== x.name).map((x) => x.name),
    intentsCaughtInFlight: intents.length > 0 ? 'some' : 'none',
    intentKinds: intents.length ? uniq(intents.map(([, x]) => { try { const j = JSON.parse(x.text) as Record<string, unknown>; return `${String(j.kind)} ${String(j.apiVersion)}`; } catch { return 'unparsable'; } })) : predictedIntentKinds(apiVersion),
    intentModes: intents.length ? uniq(intents.map(([, x]) => octal(x.mode))) : [octal(RECORD_FILE_MODE)],
    intentsNamedAfterOtherImage: intents.filter(([name, x]) => { try { return recordFileName(String((JSON.parse(x.text) as { image?: string }).image)) !== name; } catch { return true; } }).map(([n]) => n),
    intentsLeftAfterPulls: o.listing.pulling.length,
    tmpLeft: o.listing.tmp,
  };
  const r = judge(RECORDS_FORMAT, {
    prediction: { value: predicted, model: MODEL, because: `fs_pullrecords.go: sha256-<hex> names, ${apiVersion} JSON (kubelet 1.${o.kubeletMinor}), MkdirAll 0700, WriteFile 0600 to <file>.tmp then rename; pullImage removes the intent after each pull` },
    observed, startedAt: new Date(),
    show: (v) => `${v.recordKinds.join(', ')} mode ${v.recordModes.join('/')}, dirs ${Object.values(v.dirModes).join('/')}; ${v.kubeletCellsWithoutRecord.length} kubelet-pulled cell(s) without a record, ${v.preloadedCellsWithRecord.length} preloaded with one; intents caught in flight: ${v === observed ? intents.length : v.intentsCaughtInFlight} (${v.intentKinds.join(', ')}), left after the pulls: ${v.intentsLeftAfterPulls}; .tmp left: ${v.tmpLeft.length}`,
    evidence: [
      { kind: 'data', label: 'a pulled record and an intent as found on disk', data: { record: mine.find((x) => x.json)?.json, intent: intents[0] ? { file: intents[0][0], text: intents[0][1].text } : 'none caught', tmpNamesSeenWhilePulling: [...o.watcher.tmpSeen].slice(0, 5) } },
      ...(o.firstFailed.length ? [{ kind: 'data' as const, label: 'first pulls that did not run', data: o.firstFailed.map((c) => `${c.phase.policy} ${c.id}`) }] : []),
    ],
  });
  return r;
}

const predictedIntentKinds = (apiVersion: string) => [`ImagePullIntent ${apiVersion}`];

// ---- matrix rows for report.md ------------------------------------------------------

function matrixRows(rs: CellResult[]): Array<Record<string, string>> {
  return rs.map((r) => ({
    cell: r.cell.id,
    predicted: r.predicted.outcome,
    kubelet: r.observed?.outcome ?? 'no outcome',
    check: r.predicted.check ?? '-',
    'plugin exec (pred/obs)': r.cell.kind === 'x' ? '-' : `${r.predicted.providersInvoked.length ? 'yes' : 'no'}/${r.invocations > 0 ? `yes (${r.invocations})` : 'no'}`,
    event: r.observed?.event ? `${r.observed.event.reason}: ${r.observed.event.message.replace(/"[^"]*"/, '<image>').slice(0, 90)}` : '',
    why: r.predicted.because,
  }));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}

// ---- objects and helpers ----------------------------------------------------------------

function dockerSecret(namespace: string, name: string, host: string, c: { username: string; password: string }) {
  const config = { auths: { [host]: { username: c.username, password: c.password, auth: Buffer.from(`${c.username}:${c.password}`).toString('base64') } } };
  return {
    apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson',
    metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': 'credprov' } },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}

async function removeNamespaceAndGrant(env: Environment, ns: string | undefined, rbac: string | undefined): Promise<void> {
  const api = await kubeApi(env).catch(() => undefined);
  // Started, not awaited (a namespace takes its time); what is already gone is fine.
  if (ns) await api?.core.deleteNamespace({ name: ns }).catch(() => {});
  if (rbac) {
    await api?.rbac.deleteClusterRoleBinding({ name: rbac }).catch(() => {});
    await api?.rbac.deleteClusterRole({ name: rbac }).catch(() => {});
  }
}

async function forEachLimit<T>(xs: T[], limit: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, xs.length) }, async () => {
    while (next < xs.length) await fn(xs[next++]!);
  }));
}

async function poll<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${what}`);
    await sleep(500);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
