// credprov's predictions for the files the kubelet keeps about pulls (their
// format and content, what a restart does to them, whether removing an image
// prunes its record), from the KEP-2535 model alone: no cluster, no clock.
import {
  afterRestart,
  ensureImageExists,
  pruneOnRemoval,
  recordApiVersion,
  RECORD_DIR_MODE,
  RECORD_FILE_MODE,
  NEWEST_KUBELET,
  type EnsurePrediction,
  type Kep2535Kubelet,
  type NodeImage,
  type PrunePrediction,
  type PulledRecord,
} from '../../src/model/ensure-secret-pulled.ts';
import type { Prediction } from '../../src/run/kit.ts';
import { secondPod, type Cell, type Identities, type Phase } from './plan-cells.ts';
import { MODEL } from './plan.ts';
import { cellKey, imageRefOf, type CellPrediction } from './predict.ts';

export const octal = (mode: number): string => `0${mode.toString(8)}`;

// ---- ESPI-RECORDS-FORMAT ----------------------------------------------------------------

export interface RecordsFormatView {
  dirModes: Record<string, string>;
  kubeletCellsWithoutRecord: string[];
  preloadedCellsWithRecord: string[];
  recordKinds: string[];
  recordModes: string[];
  recordsNamedAfterOtherRef: string[];
  intentsCaughtInFlight: 'some' | 'none';
  intentKinds: string[];
  intentModes: string[];
  intentsNamedAfterOtherImage: string[];
  intentsLeftAfterPulls: number;
  tmpLeft: string[];
}

export const intentKinds = (apiVersion: string): string[] => [`ImagePullIntent ${apiVersion}`];

export function predictRecordsFormat(kubeletMinor: number): Prediction<RecordsFormatView> {
  const apiVersion = recordApiVersion(kubeletMinor);
  const dir = octal(RECORD_DIR_MODE);
  return {
    value: {
      dirModes: { image_manager: dir, pulled: dir, pulling: dir },
      kubeletCellsWithoutRecord: [],
      preloadedCellsWithRecord: [],
      recordKinds: [`ImagePulledRecord ${apiVersion}`],
      recordModes: [octal(RECORD_FILE_MODE)],
      recordsNamedAfterOtherRef: [],
      intentsCaughtInFlight: 'some',
      intentKinds: intentKinds(apiVersion),
      intentModes: [octal(RECORD_FILE_MODE)],
      intentsNamedAfterOtherImage: [],
      intentsLeftAfterPulls: 0,
      tmpLeft: [],
    },
    model: MODEL,
    because:
      `fs_pullrecords.go: sha256-<hex> names, ${apiVersion} JSON (kubelet 1.${kubeletMinor}), MkdirAll 0700, WriteFile 0600 to <file>.tmp then rename; ` +
      'pullImage removes the intent after each pull',
  };
}

// ---- ESPI-RECORDS-CONTENT -----------------------------------------------------------------

export type RecordView = { imageRef: unknown; credentialMapping: unknown } | 'no record';

export const recordView = (record: { imageRef?: unknown; credentialMapping?: unknown } | undefined): RecordView =>
  record ? { imageRef: record.imageRef, credentialMapping: record.credentialMapping ?? {} } : 'no record';

export function predictRecordsContent(cells: CellPrediction[]): Prediction<Record<string, RecordView>> {
  return {
    value: Object.fromEntries(cells.map((r) => [cellKey(r.cell), recordView(r.predicted.node.record)])),
    model: MODEL,
    because:
      'the first pull records its secret (or SA-mode service account); a hash match through another secret adds that secret; ' +
      "a re-pull merges the credential that worked (a node-mode provider's as nodePodsAccessible, which replaces the secrets); " +
      'preloaded images get a record only when re-pulled',
  };
}

/** Records compare whatever order the kubelet wrote their keys in. */
export const sameRecord = (a: RecordView | undefined, b: RecordView | undefined): boolean =>
  JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}

// ---- ESPI-RECORDS-SURVIVE-RESTART -----------------------------------------------------------

export interface RestartView {
  recordsDeleted: number;
  recordsRewritten: number;
  intentsConverted: number;
  ondiskGauges: { pulledRecords: number | string | undefined; pullIntents: number | string | undefined };
}

/** What the first restart does to the files on disk just before it. */
export function predictRestart(
  kubeletMinor: number,
  onDisk: { recordVersions: string[]; intentImages: string[] },
): Prediction<RestartView> {
  const intents = onDisk.intentImages.map((image) => ({ image, imagePresent: true }));
  const r = afterRestart({ kubeletMinor, recordVersions: onDisk.recordVersions, intents });
  return {
    value: {
      recordsDeleted: r.recordsDeleted,
      recordsRewritten: r.rewritten,
      intentsConverted: r.intentsConverted,
      ondiskGauges: r.gauges,
    },
    model: MODEL,
    because: r.because,
  };
}

// ---- ESPI-RECORDS-PRUNE-ON-REMOVAL -----------------------------------------------------------

/** The image-GC settings of a KubeletConfiguration file, as written (absent: the kubelet's default). */
export function gcSettings(kubeletYaml: string): { imageGCHighThresholdPercent?: string; imageMaximumGCAge?: string } {
  const value = (key: string) => new RegExp(`^${key}:\\s*(\\S+)`, 'm').exec(kubeletYaml)?.[1];
  const high = value('imageGCHighThresholdPercent');
  const maxAge = value('imageMaximumGCAge');
  return { ...(high ? { imageGCHighThresholdPercent: high } : {}), ...(maxAge ? { imageMaximumGCAge: maxAge } : {}) };
}

export function predictPruning(kubeletYaml: string): PrunePrediction {
  const gc = gcSettings(kubeletYaml);
  return pruneOnRemoval({
    ...(gc.imageGCHighThresholdPercent ? { imageGCHighThresholdPercent: Number(gc.imageGCHighThresholdPercent) } : {}),
    ...(gc.imageMaximumGCAge ? { imageMaximumGCAge: gc.imageMaximumGCAge } : {}),
  });
}

/**
 * The removed image, imported again behind the kubelet's back, in a pod with
 * Never and no secret under `phase`: while its record lives it is still
 * "pulled by the kubelet". `record`: the record the model left it with.
 */
export function predictReimported(
  cell: Cell,
  phase: Phase,
  recordKept: boolean,
  record: PulledRecord | undefined,
  ids: Identities,
  kubelet: Kep2535Kubelet = NEWEST_KUBELET,
): EnsurePrediction {
  const node: NodeImage = { present: true, imageRef: imageRefOf(cell), ...(recordKept ? { record: record! } : {}) };
  return ensureImageExists({
    kubelet,
    policy: phase.set ? phase.policy : undefined,
    image: cell.ref,
    pullPolicy: 'Never',
    node,
    pod: secondPod({ ...cell, source: 'none' }, ids).creds,
  });
}

export interface PruneView {
  afterWait?: string;
  afterRestart?: string;
  reimportedPod?: string;
}

export function predictPrune(pruning: PrunePrediction, reimported: EnsurePrediction): Prediction<PruneView> {
  return {
    value: { afterWait: pruning.afterWait, afterRestart: pruning.afterRestart, reimportedPod: reimported.outcome },
    model: MODEL,
    because:
      `${pruning.because}; the re-imported image then has a record, so under the default policy a pod without credentials and Never gets ` +
      `${reimported.outcome} (${reimported.because})`,
  };
}
