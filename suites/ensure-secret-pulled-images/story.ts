// The suite's one node, told in parts: the first pulls, then each policy in
// turn (a kubelet restart between two). Each part starts from the node the
// part before left, so the cases play them in order (concurrency 1), and a
// part that broke leaves every later part unplayed: their checks fail as the
// harness's, naming the part that broke.
import type { EnsurePrediction, Kep2535Kubelet, PrunePrediction } from '../../src/model/ensure-secret-pulled.ts';
import {
  errorMessage,
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

export class Story {
  readonly fixture: StoryFixture;
  /** The environment as the last kubelet restart left it. */
  env: Environment;
  first?: FirstPulls;
  readonly phases: PhaseRun[] = [];
  restart?: RestartRun;
  prune?: PruneRun;
  /** Record files the parts between two policies are predicted to create, by the first policy whose gauges see them. */
  readonly outsideRecords: Array<{ fromPhase: number; created: number }> = [];
  private broken?: string;

  constructor(fixture: StoryFixture) {
    this.fixture = fixture;
    this.env = fixture.run.environment;
  }

  /** Plays one part, unless a part before it broke. */
  async play<T>(part: string, play: () => Promise<T>): Promise<T> {
    if (this.broken) throw new Error(`not run: ${this.broken}`);
    try {
      return await play();
    } catch (err) {
      this.broken = `${part} broke (${errorMessage(err)})`;
      throw err;
    }
  }

  /** What a part left for a check judged afterwards; a throw naming why it is missing. */
  need<T>(value: T | undefined, what: string): T {
    if (value === undefined) throw new Error(`not run: ${this.broken ?? `${what} was not played`}`);
    return value;
  }

  /** Every policy's part, once all were played. */
  played(): PhaseRun[] {
    return PHASES.map((phase, i) => this.need(this.phases[i], `policy ${phase.policy}`));
  }

  allCells(): CellResult[] {
    return this.played().flatMap((p) => p.cells);
  }
}
