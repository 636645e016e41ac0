// The first part: half the cells' images imported into containerd behind the
// kubelet's back ("preloaded"), the other half pulled by first pods (the
// right secret, or sa-a through the SA-mode provider) under the first policy,
// while a watcher catches the kubelet's pull intents. Then ESPI-RECORDS-FORMAT
// judges the files the kubelet left.
import { join } from 'node:path';
import { recordApiVersion, recordFileName } from '../../src/model/ensure-secret-pulled.ts';
import {
  caseOf,
  deletePodBatch,
  importImages,
  IntentWatcher,
  judge,
  multiImageArchive,
  readRecords,
  runPodBatch,
  sleep,
  step,
  type BatchPod,
  type BatchPodRun,
  type Case,
  type CheckResult,
} from '../../src/run/kit.ts';
import { firstPod, type Cell } from './plan-cells.ts';
import { RECORDS_FORMAT } from './checks.ts';
import { AFTER_FIRST_PULLS_MS, FIRST_POD_CONTAINERS, FIRST_PULLS_TIMEOUT_MS } from './plan.ts';
import { intentKinds, octal, predictRecordsFormat, type RecordsFormatView } from './predict-records.ts';
import { cellKey, imageRefOf } from './predict.ts';
import type { FirstPulls, Story } from './story.ts';

async function playFirstPulls(story: Story): Promise<FirstPulls> {
  const { run, cells, ids, imageManager, matrix } = story.fixture;
  const env = story.env;
  const baselineRecords = (await readRecords(imageManager)).pulled.length;
  const preloaded = cells.filter((c) => c.provenance === 'preloaded');
  const archive = multiImageArchive(preloaded.map((c) => ({ image: c.image, ref: c.ref })));
  await step(run.progress, `preload ${preloaded.length} images into containerd`, () =>
    importImages(env, archive, join(run.artifactsDir, 'preloaded.tar')),
  );

  const kubeletCells = cells.filter((c) => c.provenance === 'kubelet');
  const plans = firstBatchPods(kubeletCells, story);
  const watcher = new IntentWatcher(join(imageManager, 'pulling'));
  watcher.start();
  let runs: Map<string, BatchPodRun>;
  try {
    runs = await step(run.progress, `first pulls: ${kubeletCells.length} images in ${plans.length} pods`, () =>
      runPodBatch(env, ids.namespace, 'first', plans, FIRST_PULLS_TIMEOUT_MS),
    );
    await deletePodBatch(env, ids.namespace, 'first');
    await sleep(AFTER_FIRST_PULLS_MS);
  } finally {
    await watcher.stop();
  }
  const outcome = new Map<string, string>();
  for (const p of plans) {
    for (const c of p.containers)
      outcome.set(c.name, runs.get(p.name)?.containers.get(c.name)?.outcome ?? 'no outcome');
  }
  return {
    baselineRecords,
    listing: await readRecords(imageManager),
    intents: watcher.caught,
    tmpSeen: [...watcher.tmpSeen],
    firstFailed: kubeletCells.filter((c) => outcome.get(c.pod) !== matrix.first.get(c)!.outcome),
  };
}

/** Pods of up to FIRST_POD_CONTAINERS cells each, secret cells and service-account cells apart (a pod has one service account). */
function firstBatchPods(kubeletCells: Cell[], story: Story): BatchPod[] {
  const plans: BatchPod[] = [];
  for (const group of [kubeletCells.filter((c) => c.kind !== 'sa'), kubeletCells.filter((c) => c.kind === 'sa')]) {
    for (let i = 0; i < group.length; i += FIRST_POD_CONTAINERS) {
      const chunk = group.slice(i, i + FIRST_POD_CONTAINERS);
      plans.push({
        name: `first-${chunk[0]!.kind === 'sa' ? 'sa' : 'secret'}-${i / FIRST_POD_CONTAINERS}`,
        containers: chunk.map((c) => ({ name: c.pod, image: c.ref, pullPolicy: 'IfNotPresent' })),
        ...firstPod(chunk[0]!, story.fixture.ids).spec,
      });
    }
  }
  return plans;
}

export const recordsFormatCase = (story: Story): Case =>
  caseOf(RECORDS_FORMAT, async () => {
    story.first = await story.play('the first pulls', () => playFirstPulls(story));
    return recordsFormat(story, story.first);
  });

function recordsFormat(story: Story, first: FirstPulls): CheckResult {
  const { cells, kubeletMinor } = story.fixture;
  const apiVersion = recordApiVersion(kubeletMinor);
  const kubeletCells = cells.filter((c) => c.provenance === 'kubelet');
  const preloaded = cells.filter((c) => c.provenance === 'preloaded');
  const recordOf = (c: Cell) => recordFileName(imageRefOf(c));
  const byName = new Map(first.listing.pulled.map((x) => [x.name, x]));
  // This run's records only: other suites' (or older kubelets') records share the directory.
  const ours = new Set(cells.map(recordOf));
  const mine = first.listing.pulled.filter((x) => ours.has(x.name));
  const distinct = (xs: string[]) => [...new Set(xs)].sort();
  const intents = [...first.intents.entries()];
  const parsed = (text: string) => JSON.parse(text) as Record<string, unknown>;
  const intentKind = (text: string) => {
    try {
      const j = parsed(text);
      return `${String(j.kind)} ${String(j.apiVersion)}`;
    } catch {
      return 'unparsable';
    }
  };
  const namedAfterOtherImage = (name: string, text: string) => {
    try {
      return recordFileName(String(parsed(text).image)) !== name;
    } catch {
      return true;
    }
  };
  const observed: RecordsFormatView = {
    dirModes: Object.fromEntries(Object.entries(first.listing.dirModes).map(([k, m]) => [k, octal(m)])),
    kubeletCellsWithoutRecord: kubeletCells.filter((c) => !byName.has(recordOf(c))).map(cellKey),
    preloadedCellsWithRecord: preloaded.filter((c) => byName.has(recordOf(c))).map(cellKey),
    recordKinds: distinct(
      mine.map((x) => (x.json ? `${String(x.json.kind)} ${String(x.json.apiVersion)}` : `unparsable: ${x.parseError}`)),
    ),
    recordModes: distinct(mine.map((x) => octal(x.mode))),
    recordsNamedAfterOtherRef: mine
      .filter((x) => x.json && recordFileName(String(x.json.imageRef)) !== x.name)
      .map((x) => x.name),
    intentsCaughtInFlight: intents.length > 0 ? 'some' : 'none',
    // None caught: intentsCaughtInFlight already disagrees; the kinds and modes then repeat the prediction.
    intentKinds: intents.length ? distinct(intents.map(([, x]) => intentKind(x.text))) : intentKinds(apiVersion),
    intentModes: intents.length
      ? distinct(intents.map(([, x]) => octal(x.mode)))
      : predictRecordsFormat(kubeletMinor).value.intentModes,
    intentsNamedAfterOtherImage: intents
      .filter(([name, x]) => namedAfterOtherImage(name, x.text))
      .map(([name]) => name),
    intentsLeftAfterPulls: first.listing.pulling.length,
    tmpLeft: first.listing.tmp,
  };
  const show = (v: RecordsFormatView) =>
    `${v.recordKinds.join(', ')} mode ${v.recordModes.join('/')}, dirs ${Object.values(v.dirModes).join('/')}; ` +
    `${v.kubeletCellsWithoutRecord.length} kubelet-pulled cell(s) without a record, ${v.preloadedCellsWithRecord.length} preloaded with one; ` +
    `intents caught in flight: ${v === observed ? intents.length : v.intentsCaughtInFlight} (${v.intentKinds.join(', ')}), ` +
    `left after the pulls: ${v.intentsLeftAfterPulls}; .tmp left: ${v.tmpLeft.length}`;
  const onDisk = {
    record: mine.find((x) => x.json)?.json,
    intent: intents[0] ? { file: intents[0][0], text: intents[0][1].text } : 'none caught',
    tmpNamesSeenWhilePulling: first.tmpSeen.slice(0, 5),
  };
  return judge(RECORDS_FORMAT, {
    prediction: predictRecordsFormat(kubeletMinor),
    observed,
    show,
    evidence: [
      { kind: 'data', label: 'a pulled record and an intent as found on disk', data: onDisk },
      ...(first.firstFailed.length
        ? [{ kind: 'data' as const, label: 'first pulls that did not run', data: first.firstFailed.map(cellKey) }]
        : []),
    ],
  });
}
