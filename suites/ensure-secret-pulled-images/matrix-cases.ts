// The matrix checks, one per policy (each plays its policy's part first), and
// the checks judged over every cell of every policy: providers' execs, the
// records' content and the mustpull metrics.
import {
  caseOf,
  judge,
  kubeletEvidence,
  type Case,
  type CaseContext,
  type CheckResult,
  type Evidence,
} from '../../src/run/kit.ts';
import { PHASES } from './plan-cells.ts';
import { MATRIX, METRICS, PLUGIN_PRESENT, RECORDS_CONTENT } from './checks.ts';
import { playPhase } from './phases.ts';
import { NODE_PROVIDER, SA_PROVIDER } from './plan.ts';
import { predictRecordsContent, recordView, sameRecord, type RecordView } from './predict-records.ts';
import {
  cellKey,
  cellView,
  execView,
  metricsAgree,
  outcomeCounts,
  predictMetrics,
  predictPhase,
  predictPluginExecs,
  providerCells,
  type MetricsView,
} from './predict.ts';
import type { CellResult, PhaseRun, Story } from './story.ts';

/** The most wrong cells whose pod events (and kubelet log lines) a failed matrix check carries. */
const WRONG_CELLS_SHOWN = 6;

export const phaseCases = (story: Story): Case[] =>
  PHASES.map((phase, index) => ({
    checks: [MATRIX[phase.policy]],
    run: async (ctx) => {
      const played = await story.play(`policy ${phase.policy}`, () => playPhase(story, index));
      story.phases[index] = played;
      return judgePhase(ctx, story, played);
    },
  }));

function judgePhase(ctx: CaseContext, story: Story, played: PhaseRun): CheckResult {
  const { ids, allowlist } = story.fixture;
  const prediction = predictPhase(played.phase, played.cells, allowlist);
  const predicted = prediction.value;
  const observed = Object.fromEntries(played.cells.map((r) => [r.cell.id, cellView(r.observed)]));
  const wrongCells = played.cells.filter((r) => predicted[r.cell.id] !== observed[r.cell.id]);
  const shown = wrongCells.slice(0, WRONG_CELLS_SHOWN);
  ctx.onFailure(async () =>
    shown.length === 0
      ? []
      : [
          ...shown.map((x): Evidence => ({
            kind: 'event',
            label: `events of pod ${ids.namespace}/${x.cell.pod} (${x.cell.id})`,
            data: x.observed?.events ?? [],
          })),
          ...(await kubeletEvidence(
            story.env,
            shown.map((x) => x.cell.pod),
          )),
        ],
  );
  const differ = wrongCells
    .slice(0, 4)
    .map((x) => `${x.cell.id} ${observed[x.cell.id]} (predicted ${predicted[x.cell.id]})`)
    .join('; ');
  return judge(MATRIX[played.phase.policy], {
    prediction,
    observed,
    show: (v) =>
      v === observed && wrongCells.length
        ? `${outcomeCounts(v)}; ${wrongCells.length} cell(s) differ: ${differ}`
        : outcomeCounts(v),
    evidence: [{ kind: 'data', label: 'matrix', data: matrixRows(played.cells) }],
  });
}

/** The table report.md draws for a matrix check (evidence labelled `matrix`). */
function matrixRows(cells: CellResult[]): Array<Record<string, string>> {
  return cells.map((r) => ({
    cell: r.cell.id,
    predicted: r.predicted.outcome,
    kubelet: r.observed?.outcome ?? 'no outcome',
    check: r.predicted.check ?? '-',
    'plugin exec (pred/obs)':
      r.cell.kind === 'x'
        ? '-'
        : `${r.predicted.providersInvoked.length ? 'yes' : 'no'}/${r.invocations > 0 ? `yes (${r.invocations})` : 'no'}`,
    event: r.observed?.event
      ? `${r.observed.event.reason}: ${r.observed.event.message.replace(/"[^"]*"/, '<image>').slice(0, 90)}`
      : '',
    why: r.predicted.because,
  }));
}

export const pluginPresentCase = (story: Story): Case =>
  caseOf(PLUGIN_PRESENT, async () => {
    const withProvider = providerCells(story.allCells());
    const ns = story.fixture.ids.namespace;
    const prediction = predictPluginExecs(withProvider);
    const observed = Object.fromEntries(withProvider.map((r) => [cellKey(r.cell), execView(r.invocations > 0)]));
    const expectedSubject = (r: CellResult) =>
      `system:serviceaccount:${ns}:${r.cell.source === 'provider-sa-same' ? 'sa-a' : 'sa-b'}`;
    const saWrong = withProvider
      .filter((r) => r.cell.kind === 'sa' && r.tokenSubjects.some((s) => s !== expectedSubject(r)))
      .map((r) => cellKey(r.cell));
    const execd = (m: Record<string, string>) =>
      `${Object.values(m).filter((v) => v === execView(true)).length} of ${withProvider.length} exec'd`;
    const rows = withProvider.map((r) => ({
      cell: cellKey(r.cell),
      provider: r.cell.kind === 'sa' ? SA_PROVIDER : NODE_PROVIDER,
      predicted: prediction.value[cellKey(r.cell)],
      execs: r.invocations,
      tokenSubjects: r.tokenSubjects,
      pull: r.predicted.pull,
      check: r.predicted.check ?? '-',
    }));
    return judge(PLUGIN_PRESENT, {
      prediction,
      observed,
      show: (v) =>
        `${execd(v)}${v === observed && saWrong.length ? `; SA-mode tokens for the wrong service account in ${saWrong.join(', ')}` : ''}`,
      evidence: [{ kind: 'data', label: 'provider cells: predicted and observed execs', data: rows }],
      problems: saWrong.length
        ? [`the SA-mode provider got tokens for the wrong service account in ${saWrong.join(', ')}`]
        : [],
    });
  });

export const recordsContentCase = (story: Story): Case =>
  caseOf(RECORDS_CONTENT, async () => {
    const all = story.allCells();
    const prediction = predictRecordsContent(all);
    const predicted = prediction.value;
    const observed = Object.fromEntries(all.map((r) => [cellKey(r.cell), recordView(r.recordObserved)]));
    const differ = Object.keys(predicted).filter((k) => !sameRecord(predicted[k], observed[k]));
    const show = (v: Record<string, RecordView>) =>
      v === observed && differ.length
        ? `${differ.length} of ${all.length} records differ: ${differ
            .slice(0, 3)
            .map((k) => `${k}: ${JSON.stringify(observed[k])}`)
            .join('; ')}`
        : `${all.length} cell records (${Object.values(v).filter((x) => x === 'no record').length} without one)`;
    return judge(RECORDS_CONTENT, {
      prediction,
      observed,
      agree: (a, b) => Object.keys(a).every((k) => sameRecord(a[k], b[k])),
      show,
      evidence: [
        {
          kind: 'data',
          label: 'records that differ (predicted, observed)',
          data: differ.map((k) => ({ cell: k, predicted: predicted[k], observed: observed[k] })),
        },
      ],
    });
  });

export const metricsCase = (story: Story): Case =>
  caseOf(METRICS, async () => {
    const rows = story.played().map((p) => p.metrics);
    const observed: Record<string, MetricsView> = Object.fromEntries(rows.map((m) => [m.policy, m.observed]));
    const show = (v: Record<string, MetricsView>) =>
      Object.entries(v)
        .map(
          ([policy, m]) =>
            `${policy}: ${Object.entries(m)
              .map(([k, n]) => `${k.replace(/^credential/, '')}=${n}`)
              .join(' ')}`,
        )
        .join('; ');
    const table = rows.flatMap((m) =>
      Object.keys(m.predicted).map((k) => ({
        policy: m.policy,
        metric: k,
        predicted: String(m.predicted[k]),
        observed: String(m.observed[k] ?? 'absent'),
      })),
    );
    return judge(METRICS, {
      prediction: predictMetrics(rows),
      observed,
      agree: metricsAgree,
      show,
      evidence: [{ kind: 'data', label: 'matrix', data: table }],
    });
  });
