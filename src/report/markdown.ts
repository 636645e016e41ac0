import { failedFirst, type CheckResult, type RunReport } from './model.ts';
import { gridsOf } from './grid.ts';

const ICON: Record<CheckResult['status'], string> = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' };
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** report.md: a table a person reads first, then the evidence of every failure. */
export function toMarkdown(report: RunReport): string {
  const { passed, failed, skipped } = report.summary;
  const lines: string[] = [
    `# credprov report: ${report.tool.command}`,
    '',
    `${passed} passed, ${failed} failed, ${skipped} skipped (${(report.durationMs / 1000).toFixed(1)} s, started ${report.startedAt})`,
    '',
    '## Subject',
    '',
    '```json',
    JSON.stringify(report.subject, null, 2),
    '```',
    '',
    ...(report.suites ? suiteSections(report) : checkTable(report.checks)),
  ];
  if (report.metrics && Object.keys(report.metrics).length > 0) {
    lines.push('## Metrics (information only)', '', '```json', JSON.stringify(report.metrics, null, 2), '```', '');
  }
  const failures = failedFirst(report.checks).filter((c) => c.status === 'failed');
  if (failures.length > 0) {
    lines.push('## Failures', '');
    for (const c of failures) {
      lines.push(
        `### ${c.id} (${c.level}${c.cause === 'harness' ? ', harness error' : ''})`,
        '',
        c.message,
        '',
        `Requirement: ${c.source}`,
        '',
      );
      if (c.comparison)
        lines.push(
          `Predicted by ${c.comparison.model}: \`${short(c.comparison.predicted)}\`; observed: \`${short(c.comparison.observed)}\`.`,
          '',
        );
      for (const e of c.evidence) {
        lines.push(
          `<details><summary>${e.label}</summary>`,
          '',
          '```',
          'text' in e ? e.text : JSON.stringify(e.data, null, 2),
          '```',
          '</details>',
          '',
        );
      }
    }
  }
  return lines.join('\n');
}

function checkTable(checks: CheckResult[]): string[] {
  return [
    '## Checks',
    '',
    '| status | level | id | title | message |',
    '|---|---|---|---|---|',
    ...failedFirst(checks).map(
      (c) => `| ${ICON[c.status]} | ${c.level} | ${cell(c.id)} | ${cell(c.title)} | ${cell(c.message)} |`,
    ),
    '',
  ];
}

/** credprov run: one section per suite with its wall time; suite cases show the prediction next to what the kubelet did. */
function suiteSections(report: RunReport): string[] {
  const lines = [
    '## Suites',
    '',
    '| suite | checks | passed | failed | skipped | wall time |',
    '|---|---|---|---|---|---|',
  ];
  for (const s of report.suites ?? []) {
    const cs = report.checks.filter((c) => c.suite === s.name);
    const n = (st: CheckResult['status']) => cs.filter((c) => c.status === st).length;
    lines.push(
      `| ${s.name} | ${cs.length} | ${n('passed')} | ${n('failed')} | ${n('skipped')} | ${(s.durationMs / 1000).toFixed(1)} s |`,
    );
  }
  lines.push('');
  for (const s of report.suites ?? []) {
    const cs = failedFirst(report.checks.filter((c) => c.suite === s.name));
    lines.push(`## Suite ${s.name} (${(s.durationMs / 1000).toFixed(1)} s)`, '', s.summary, '');
    if (cs.some((c) => c.comparison)) {
      lines.push('| status | level | id | predicted | kubelet | message |', '|---|---|---|---|---|---|');
      for (const c of cs) {
        const p = c.comparison;
        lines.push(
          `| ${ICON[c.status]} | ${c.level} | ${cell(c.id)} | ${p ? cell(short(p.predicted)) : ''} | ${p ? cell(short(p.observed)) : ''} | ${cell(c.message)} |`,
        );
      }
    } else {
      lines.push('| status | level | id | title | message |', '|---|---|---|---|---|');
      for (const c of cs)
        lines.push(`| ${ICON[c.status]} | ${c.level} | ${cell(c.id)} | ${cell(c.title)} | ${cell(c.message)} |`);
    }
    lines.push('');
    lines.push(...matrixTables(cs));
    lines.push(...gridTables(cs));
  }
  return lines;
}

/** The suite's two-way tables (src/report/grid.ts): each cell is one check, its status and what was seen. */
export function gridTables(cs: CheckResult[]): string[] {
  const lines: string[] = [];
  for (const g of gridsOf(cs)) {
    lines.push(
      `### ${cell(g.title)}`,
      '',
      `| | ${g.columns.map(cell).join(' | ')} |`,
      `|---|${g.columns.map(() => '---|').join('')}`,
    );
    for (const r of g.rows) {
      lines.push(
        `| **${cell(r)}** | ${g.columns
          .map((col) => {
            const c = g.cells[r]?.[col];
            return c ? `${ICON[c.status]} ${cell(c.text)}` : '–';
          })
          .join(' | ')} |`,
      );
    }
    lines.push(
      '',
      "Each cell is one check (its id, message and evidence: report.json, under the check's `cell`; report.html links each cell to them).",
      '',
    );
  }
  return lines;
}

/** A check's `{kind:'data', label:'matrix', data: [{column: value, …}, …]}` evidence, rendered as a table under its suite. */
export function matrixTables(cs: CheckResult[]): string[] {
  const lines: string[] = [];
  for (const c of cs) {
    for (const e of c.evidence) {
      if (e.kind !== 'data' || e.label !== 'matrix' || !Array.isArray(e.data) || e.data.length === 0) continue;
      const rows = e.data.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null);
      const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
      const text = (v: unknown) => cell(v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
      lines.push(
        `### ${c.id}: matrix (${ICON[c.status]})`,
        '',
        `| ${columns.map(cell).join(' | ')} |`,
        `|${columns.map(() => '---|').join('')}`,
      );
      for (const r of rows) lines.push(`| ${columns.map((k) => text(r[k])).join(' | ')} |`);
      lines.push('');
    }
  }
  return lines;
}

function short(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
}
