// A policy's part: a kubelet restart into the policy (after the first), then
// every cell's second pod at once, with the mustpull metrics around them and
// the providers' execs and each cell's record read afterwards. Before the
// second policy, one image is removed behind the kubelet's back: the restart
// then shows whether its record is pruned, and the image, imported again,
// runs in one more pod.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MUST_PULL_RESULTS, recordFileName, type EnsurePrediction } from '../../src/model/ensure-secret-pulled.ts';
import {
  deletePodBatch,
  importImages,
  kubeletFilesOf,
  multiImageArchive,
  readRecord,
  readRecords,
  removeImage,
  runPodBatch,
  scrapeMetrics,
  since,
  sleep,
  step,
  waitFor,
  type BatchPod,
  type Metrics,
  type RecordsListing,
} from '../../src/run/kit.ts';
import { PHASES, pruneCellOf, secondPod, type Phase } from './plan-cells.ts';
import {
  BEFORE_METRICS_MS,
  MUSTPULL,
  ONDISK_INTENTS,
  ONDISK_RECORDS,
  QUIET_SCRAPE_TRIES,
  phaseConfig,
  PHASE_TIMEOUT_MS,
  PRUNE_WAIT_MS,
  PULLS_SETTLE_TIMEOUT_MS,
  READ_INTERVAL_MS,
} from './plan.ts';
import { gcSettings, predictPruning, predictReimported, predictRestart } from './predict-records.ts';
import { imageRefOf, predictPhaseMetrics } from './predict.ts';
import type { CellResult, PhaseRun, PruneRun, Story } from './story.ts';

export async function playPhase(story: Story, index: number): Promise<PhaseRun> {
  const phase = PHASES[index]!;
  const { run, fleet, cells, ids, imageManager, matrix } = story.fixture;
  const first = story.need(story.first, 'the first pulls');
  const execs = await since(() => fleet.invocations().catch(() => []));
  const extra: Array<{ prediction: EnsurePrediction; plan: BatchPod }> = [];
  if (index === 1) story.prune = await removeImageBehindKubelet(story);
  if (index > 0) {
    const restarted = await restartInto(story, phase);
    if (index === 1) extra.push(await afterFirstRestart(story, phase, restarted));
  }

  const phaseCells = cells.filter((c) => c.phase === phase);
  const env = story.env;
  const metricsBefore = await scrapeMetrics(env);
  const plans: BatchPod[] = [
    ...phaseCells.map((c) => ({
      name: c.pod,
      containers: [{ name: 'main', image: c.ref, pullPolicy: c.pullPolicy }],
      ...secondPod(c, ids).spec,
    })),
    ...extra.map((x) => x.plan),
  ];
  const runs = await step(run.progress, `${phase.policy}: ${plans.length} pods`, () =>
    runPodBatch(env, ids.namespace, phase.code, plans, PHASE_TIMEOUT_MS),
  );
  await deletePodBatch(env, ids.namespace, phase.code);
  // Retries of failing pods may still be pulling: the intents gauge is read once no pull is in flight. A deleted
  // pod's worker can still be in its credential lookup, so under load a pull may begin after the directory was seen
  // empty and be counted by the read (qualify on v1.36.5 and v1.38.0-alpha.0 at load 15-20 read
  // ondisk_pullintents=1). Such a pull deletes its intent, and that delete sets the gauge again: so a read with
  // intents counted while none is on disk is repeated a few times, and only a value that stays is reported.
  const noPullInFlight = async () => ((await readRecords(imageManager)).pulling.length === 0 ? true : undefined);
  const quietScrape = async () => {
    await waitFor('no pull in flight (empty image_manager/pulling)', noPullInFlight, {
      timeoutMs: PULLS_SETTLE_TIMEOUT_MS,
      intervalMs: READ_INTERVAL_MS,
    });
    await sleep(BEFORE_METRICS_MS);
    const metrics = await scrapeMetrics(env);
    const settled = (metrics.get(ONDISK_INTENTS) ?? 0) === 0 && (await noPullInFlight()) === true;
    return { metrics, settled };
  };
  let read = await quietScrape();
  for (let i = 0; i < QUIET_SCRAPE_TRIES && !read.settled; i++) read = await quietScrape();
  const metricsAfter = read.metrics;
  const invocations = await execs.added();

  const results: CellResult[] = [];
  for (const cell of phaseCells) {
    const predicted = matrix.second.get(cell)!;
    const repository = `${ids.host}/${cell.repo}`;
    const mine = invocations.filter((x) => x.request.image === repository || x.image === repository);
    const recordObserved = await readRecord(imageManager, recordFileName(imageRefOf(cell)));
    const observed = runs.get(cell.pod)?.containers.get('main');
    results.push({
      cell,
      predicted,
      ...(observed ? { observed } : {}),
      invocations: mine.length,
      tokenSubjects: [...new Set(mine.map((x) => x.tokenSub ?? '').filter(Boolean))],
      ...(recordObserved ? { recordObserved } : {}),
    });
  }
  const reimported = extra[0];
  if (story.prune && reimported) {
    const container = runs.get(reimported.plan.name)?.containers.get('main');
    story.prune.observed.reimportedPod = container?.outcome ?? 'no outcome';
    story.prune.evidence.push({
      kind: 'event',
      label: `events of pod ${ids.namespace}/${reimported.plan.name} (${story.prune.cell.ref}, Never, no secret)`,
      data: container?.events ?? [],
    });
  }
  const delta = (k: string) => (metricsAfter.get(k) ?? 0) - (metricsBefore.get(k) ?? 0);
  const metrics = {
    policy: phase.policy,
    predicted: predictPhaseMetrics({
      phaseIndex: index,
      cells,
      matrix,
      baselineRecords: first.baselineRecords,
      extra: extra.map((x) => x.prediction),
      outsideRecords: story.outsideRecords.filter((r) => r.fromPhase <= index).reduce((n, r) => n + r.created, 0),
    }),
    observed: {
      ...Object.fromEntries(MUST_PULL_RESULTS.map((k) => [k, delta(MUSTPULL(k))])),
      ondisk_pulledrecords: metricsAfter.get(ONDISK_RECORDS) ?? 'absent',
      ondisk_pullintents: metricsAfter.get(ONDISK_INTENTS) ?? 'absent',
    },
  };
  return { phase, cells: results, metrics };
}

/** Removes the prune cell's image with ctr, waits, and looks at its record. */
async function removeImageBehindKubelet(story: Story): Promise<PruneRun> {
  const { cells, imageManager } = story.fixture;
  const cell = pruneCellOf(cells);
  const file = recordFileName(imageRefOf(cell));
  const kubeletYaml = await readFile(kubeletFilesOf(story.env).configFile, 'utf8').catch(() => '');
  const gc = gcSettings(kubeletYaml);
  const removed = await removeImage(story.env, cell.image.manifest.digest);
  await sleep(PRUNE_WAIT_MS);
  const afterWait = (await readRecord(imageManager, file)) ? 'kept' : 'pruned';
  const kubeletConfig = {
    imageGCHighThresholdPercent: gc.imageGCHighThresholdPercent ?? '(default 85)',
    imageMaximumGCAge: gc.imageMaximumGCAge ?? '(default 0s)',
  };
  return {
    cell,
    pruning: predictPruning(kubeletYaml),
    observed: { afterWait },
    evidence: [
      {
        kind: 'data',
        label: `ctr images rm (image of cell ${PHASES[0]!.policy} ${cell.id})`,
        data: { removed, recordFile: join(imageManager, 'pulled', file), kubeletConfig },
      },
    ],
  };
}

interface Restarted {
  before: RecordsListing;
  after: RecordsListing;
  metrics: Metrics;
}

async function restartInto(story: Story, phase: Phase): Promise<Restarted> {
  const { run, imageManager, allowlist } = story.fixture;
  const before = await readRecords(imageManager);
  const config = phaseConfig(story.env.spec.kubelet.config, phase, allowlist);
  story.env = await run.provider.restartKubelet(story.env, { kubelet: { config } }, run.progress);
  const metrics = await scrapeMetrics(story.env);
  return { before, after: await readRecords(imageManager), metrics };
}

/** Notes what the first restart did to the records, and imports the pruned image again for one more pod of `phase`. */
async function afterFirstRestart(
  story: Story,
  phase: Phase,
  r: Restarted,
): Promise<{ prediction: EnsurePrediction; plan: BatchPod }> {
  const { run, ids, kubeletMinor, kubelet, matrix } = story.fixture;
  const byName = new Map(r.after.pulled.map((x) => [x.name, x.text]));
  story.restart = {
    prediction: predictRestart(kubeletMinor, {
      recordVersions: r.before.pulled.map((x) => String(x.json?.apiVersion ?? '')),
      intentImages: r.before.pulling.map((x) => String(x.json?.image ?? '')),
    }),
    observed: {
      recordsDeleted: r.before.pulled.filter((x) => !byName.has(x.name)).length,
      recordsRewritten: r.before.pulled.filter((x) => byName.has(x.name) && byName.get(x.name) !== x.text).length,
      intentsConverted: r.before.pulling.length - r.after.pulling.length,
      ondiskGauges: { pulledRecords: r.metrics.get(ONDISK_RECORDS), pullIntents: r.metrics.get(ONDISK_INTENTS) },
    },
    evidence: [
      {
        kind: 'data',
        label: 'pulled records before / after the restart',
        data: {
          before: r.before.pulled.length,
          after: r.after.pulled.length,
          files: r.after.pulled.map((x) => x.name),
        },
      },
    ],
  };
  const prune = story.need(story.prune, 'the image removal');
  const kept = byName.has(recordFileName(imageRefOf(prune.cell)));
  prune.observed.afterRestart = kept ? 'kept' : 'pruned';
  // Re-imported behind the kubelet's back: still "pulled by the kubelet" while its record lives.
  await importImages(
    story.env,
    multiImageArchive([{ image: prune.cell.image, ref: prune.cell.ref }]),
    join(run.artifactsDir, 'reimport.tar'),
  );
  prune.reimported = predictReimported(
    prune.cell,
    phase,
    kept,
    matrix.second.get(prune.cell)!.node.record,
    ids,
    kubelet,
  );
  const plan: BatchPod = {
    name: `${phase.code}-reimported`,
    containers: [{ name: 'main', image: prune.cell.ref, pullPolicy: 'Never' }],
  };
  return { prediction: prune.reimported, plan };
}
