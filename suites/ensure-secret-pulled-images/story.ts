// The suite's one node, told in parts (the kit's PartsInOrder): the first
// pulls, then each policy in turn (a kubelet restart between two), and what
// each part left for the checks judged afterwards.
import type { EnsurePrediction, Kep2535Kubelet, PrunePrediction } from '../../src/model/ensure-secret-pulled.ts';
import {
  PartsInOrder,
  type ContainerRun,
  type Environment,
  type Evidence,
  type Fleet,
  type Prediction,
  type RecordsListing,
  type SuiteRun,
} from '../../src/run/kit.ts';
import { PHASES, type Cell, type Identities, type Phase } from './plan-cells.ts';
import type { PruneView, RestartView } from './predict-records.ts';
import type { CellPrediction, MatrixPrediction, MetricsView } from './predict.ts';

export interface CellResult extends CellPrediction {
  observed?: ContainerRun;
  /** How often a provider was exec'd for the cell's repository during its policy. */
  invocations: number;
  /** The service accounts the SA-mode provider's tokens named (sub), for SA cells. */
  tokenSubjects: string[];
  recordObserved?: Record<string, unknown>;
}

export interface FirstPulls {
  /** Record files before the run (other suites' and older runs' share the directory). */
  baselineRecords: number;
  listing: RecordsListing;
  intents: Map<string, { mode: number; text: string }>;
  tmpSeen: string[];
  /** Kubelet-provenance cells whose first pull did not end as predicted. */
  firstFailed: Cell[];
}

export interface PhaseRun {
  phase: Phase;
  cells: CellResult[];
  metrics: { policy: string; predicted: MetricsView; observed: MetricsView };
}

export interface RestartRun {
  prediction: Prediction<RestartView>;
  observed: RestartView;
  evidence: Evidence[];
}

export interface PruneRun {
  cell: Cell;
  pruning: PrunePrediction;
  reimported?: EnsurePrediction;
  observed: PruneView;
  evidence: Evidence[];
}

export interface StoryFixture {
  run: SuiteRun;
  fleet: Fleet;
  cells: Cell[];
  ids: Identities;
  allowlist: string[];
  /** <kubelet root>/image_manager. */
  imageManager: string;
  kubeletMinor: number;
  /** The version table's row for the kubelet's minor. */
  kubelet: Kep2535Kubelet;
  matrix: MatrixPrediction;
}

/** The story's parts as they were played, on the kit's PartsInOrder. */
export class Story extends PartsInOrder {
  readonly fixture: StoryFixture;
  /** The environment as the last kubelet restart left it. */
  env: Environment;
  first?: FirstPulls;
  readonly phases: PhaseRun[] = [];
  restart?: RestartRun;
  prune?: PruneRun;
  /** Record files the parts between two policies are predicted to create, by the first policy whose gauges see them. */
  readonly outsideRecords: Array<{ fromPhase: number; created: number }> = [];

  constructor(fixture: StoryFixture) {
    super();
    this.fixture = fixture;
    this.env = fixture.run.environment;
  }

  /** Every policy's part, once all were played. */
  played(): PhaseRun[] {
    return PHASES.map((phase, i) => this.need(this.phases[i], `policy ${phase.policy}`));
  }

  allCells(): CellResult[] {
    return this.played().flatMap((p) => p.cells);
  }
}
