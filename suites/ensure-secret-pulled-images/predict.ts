// credprov's predictions for this suite's cells, from the KEP-2535 model
// (src/model/ensure-secret-pulled.ts) alone: no cluster, no clock. The node
// state the second pods meet is the model's own (each cell's image as its
// first pull or the preload left it). What the node really did enters only
// where the suite's procedure depends on it: the record files there before
// the run (here), and the files at the restart (predict-records.ts).
import {
  ensureImageExists,
  MUST_PULL_RESULTS,
  mustPullCounts,
  NEWEST_KUBELET,
  type EnsurePrediction,
  type Kep2535Kubelet,
  type NodeImage,
} from '../../src/model/ensure-secret-pulled.ts';
import type { Prediction } from '../../src/run/kit.ts';
import { firstPod, PHASES, secondPod, type Cell, type Identities, type Phase } from './plan-cells.ts';
import { MODEL } from './plan.ts';

export interface CellPrediction {
  cell: Cell;
  predicted: EnsurePrediction;
}

/** Records are keyed by the CRI image ID, which is the image's config digest. */
export const imageRefOf = (c: Cell): string => c.image.config.digest;
/** How evidence and the summary checks name a cell: `<policy> <cell id>`. */
export const cellKey = (c: Cell): string => `${c.phase.policy} ${c.id}`;

// ---- the cells ------------------------------------------------------------------------

/** The first pull of a kubelet-provenance cell, under the first policy, onto a node without the image. */
export function predictFirstPull(cell: Cell, ids: Identities, kubelet = NEWEST_KUBELET): EnsurePrediction {
  return ensureImageExists({
    kubelet,
    policy: PHASES[0]!.policy,
    image: cell.ref,
    pullPolicy: 'IfNotPresent',
    node: { present: false, imageRef: imageRefOf(cell) },
    pod: firstPod(cell, ids).creds,
  });
}

/** The cell's image when its second pod comes: preloaded (no record), or as its first pull left it. */
export function nodeBeforeSecondPod(cell: Cell, first: EnsurePrediction | undefined): NodeImage {
  if (cell.provenance === 'preloaded') return { present: true, imageRef: imageRefOf(cell) };
  if (!first) throw new Error(`no first pull predicted for kubelet-provenance cell ${cellKey(cell)}`);
  return first.node;
}

export function predictSecondPod(
  cell: Cell,
  node: NodeImage,
  ids: Identities,
  allowlist: string[],
  kubelet: Kep2535Kubelet = NEWEST_KUBELET,
): EnsurePrediction {
  const phase = cell.phase;
  return ensureImageExists({
    kubelet,
    policy: phase.set ? phase.policy : undefined,
    allowlist: phase.allowlist ? allowlist : [],
    image: cell.ref,
    pullPolicy: cell.pullPolicy,
    node,
    pod: secondPod(cell, ids).creds,
  });
}

export interface MatrixPrediction {
  /** The first pull of every kubelet-provenance cell. */
  first: Map<Cell, EnsurePrediction>;
  /** Every cell's second pod. */
  second: Map<Cell, EnsurePrediction>;
}

/** Every cell's first pull and second pod: each cell has an image of its own, so cells never meet another cell's record. */
export function predictMatrix(
  cells: Cell[],
  ids: Identities,
  allowlist: string[],
  kubelet: Kep2535Kubelet = NEWEST_KUBELET,
): MatrixPrediction {
  const first = new Map(
    cells.filter((c) => c.provenance === 'kubelet').map((c) => [c, predictFirstPull(c, ids, kubelet)]),
  );
  const second = new Map(
    cells.map((c) => [c, predictSecondPod(c, nodeBeforeSecondPod(c, first.get(c)), ids, allowlist, kubelet)]),
  );
  return { first, second };
}

// ---- ESPI-MATRIX-<policy> -------------------------------------------------------------

/** A container's outcome and the kind of its decisive event, predicted or observed. */
export function cellView(x: { outcome: string; event?: { kind: string } | undefined } | undefined): string {
  return x ? `${x.outcome} (${x.event ? x.event.kind : 'no event'})` : 'no outcome';
}

/** `12 Running, 2 ErrImagePull`: how many cells of each outcome. */
export function outcomeCounts(views: Record<string, string>): string {
  const counts = new Map<string, number>();
  for (const v of Object.values(views)) counts.set(v.split(' ')[0]!, (counts.get(v.split(' ')[0]!) ?? 0) + 1);
  return [...counts].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
}

export function predictPhase(
  phase: Phase,
  cells: CellPrediction[],
  allowlist: string[],
): Prediction<Record<string, string>> {
  const value = Object.fromEntries(cells.map((r) => [r.cell.id, cellView(r.predicted)]));
  const policy = `${phase.policy}${phase.set ? '' : ' (unset: the default)'}${phase.allowlist ? ` with allowlist ${allowlist.join(', ')}` : ''}`;
  return {
    value,
    model: MODEL,
    because: `${policy}: ${outcomeCounts(value)} predicted from provenance, record and the pod's credentials (matrix evidence has each cell's reason)`,
  };
}

// ---- ESPI-METRICS -----------------------------------------------------------------------

export type MetricsView = Record<string, string | number>;

/**
 * One policy's mustpull counter increments and the ondisk gauges after its
 * pods. A failing pod's retries add mustAuthenticate checks, so that count is
 * a minimum (`>=n`) then. The gauges are set on a write and read 0 after a
 * restart until one: the pulled-records gauge is then every record file.
 */
export function predictPhaseMetrics(o: {
  phaseIndex: number;
  cells: Cell[];
  matrix: MatrixPrediction;
  baselineRecords: number;
  extra: EnsurePrediction[];
  /** Record files parts played between the phases (the field-bug pods) created before this phase's end. */
  outsideRecords?: number;
}): MetricsView {
  const phase = PHASES[o.phaseIndex]!;
  const upToPhase = new Set(PHASES.slice(0, o.phaseIndex + 1));
  const second = (c: Cell) => o.matrix.second.get(c)!;
  const ofPhase = [...o.cells.filter((c) => c.phase === phase).map(second), ...o.extra];
  const counts = mustPullCounts(ofPhase);
  const retried = ofPhase.filter((p) => p.outcome !== 'Running').length;
  const created = (ps: EnsurePrediction[]) => ps.filter((p) => p.recordCreated).length;
  const recordFiles =
    o.baselineRecords +
    (o.outsideRecords ?? 0) +
    created([...o.matrix.first.values()]) +
    created(o.cells.filter((c) => upToPhase.has(c.phase)).map(second));
  const written = o.phaseIndex === 0 || o.cells.some((c) => c.phase === phase && second(c).recordWritten);
  return {
    ...Object.fromEntries(
      MUST_PULL_RESULTS.map((k): [string, string | number] => [
        k,
        k === 'mustAuthenticate' && retried > 0 ? `>=${counts[k]}` : counts[k],
      ]),
    ),
    ondisk_pulledrecords: written ? recordFiles : 0,
    ondisk_pullintents: 0,
  };
}

export function predictMetrics(
  rows: Array<{ policy: string; predicted: MetricsView }>,
): Prediction<Record<string, MetricsView>> {
  return {
    value: Object.fromEntries(rows.map((m) => [m.policy, m.predicted])),
    model: MODEL,
    because:
      "one mustpull check per EnsureImageExists of a present image with IfNotPresent/Never (a failing pod's retries add mustAuthenticate only); " +
      'the ondisk gauges are set to the file count on every write or delete, and read 0 after a restart until one',
  };
}

/** Observed agrees when every predicted number is equal, and every `>=n` is met. */
export function metricsAgree(predicted: Record<string, MetricsView>, observed: Record<string, MetricsView>): boolean {
  return Object.keys(predicted).every((policy) =>
    Object.entries(predicted[policy]!).every(([k, v]) =>
      typeof v === 'string' ? Number(observed[policy]?.[k] ?? -1) >= Number(v.slice(2)) : observed[policy]?.[k] === v,
    ),
  );
}

// ---- ESPI-PLUGIN-INVOKED-FOR-PRESENT-IMAGE ------------------------------------------------

export const execView = (execd: boolean): string => (execd ? "exec'd" : "not exec'd");
/** The cells whose image a provider matches. */
export const providerCells = <T extends CellPrediction>(cells: T[]): T[] => cells.filter((r) => r.cell.kind !== 'x');

export function predictPluginExecs(cells: CellPrediction[]): Prediction<Record<string, string>> {
  const withProvider = providerCells(cells);
  const execdWithoutPull = withProvider.filter(
    (r) => r.predicted.providersInvoked.length > 0 && !r.predicted.pull,
  ).length;
  return {
    value: Object.fromEntries(
      withProvider.map((r) => [cellKey(r.cell), execView(r.predicted.providersInvoked.length > 0)]),
    ),
    model: MODEL,
    because:
      "the pod's credentials are looked up lazily, at most once per EnsureImageExists: for a present image only to match a record " +
      `naming secrets/service accounts under a verifying policy (${execdWithoutPull} cells exec a provider without pulling, e.g. Never + a SA-mode provider), ` +
      'or right before a pull; never for an allowed image or a record-less image with Never',
  };
}
