// The qualification matrix: suite × Kubernetes version, each cell the suite's
// worst status on that version with the reason (credprov qualify). Rendered
// as JSON, JUnit (a testsuite per version, a testcase per suite) and
// Markdown; report.html draws it from RunReport.metrics.matrix.
import type { CheckResult, RunReport, Status } from './model.ts';

export interface MatrixCell {
  status: Status;
  passed: number;
  /** Every failed check, SHOULD ones included. */
  failed: number;
  skipped: number;
  /** SHOULD checks that failed on the subject's account: reported, but they fail neither the cell nor the exit code. */
  shouldFailed: number;
  /** Why it failed, warned or was skipped: the first such check's id and message. */
  reason?: string;
  /** The per-version report this cell comes from. */
  report?: string;
}

export interface Matrix {
  versions: string[];
  rows: Array<{ suite: string; cells: Record<string, MatrixCell> }>;
}

/**
 * A suite's cell on one version, by the exit code's rule (hasBlockingFailure): failed if a MUST check failed or
 * the harness broke, else passed if any check passed or only SHOULD checks failed, else skipped.
 */
export function cellFor(checks: CheckResult[], report?: string): MatrixCell {
  const n = (s: Status) => checks.filter((c) => c.status === s).length;
  const blocking = checks.filter((c) => c.status === 'failed' && (c.level === 'MUST' || c.cause === 'harness'));
  const warned = checks.filter((c) => c.status === 'failed' && !blocking.includes(c));
  const status: Status = blocking.length > 0 ? 'failed' : n('passed') > 0 || warned.length > 0 ? 'passed' : 'skipped';
  const why =
    blocking[0] ??
    (warned[0] && { ...warned[0], id: `SHOULD ${warned[0].id}` }) ??
    (status === 'skipped' ? checks.find((c) => c.status === 'skipped') : undefined);
  return {
    status,
    passed: n('passed'),
    failed: n('failed'),
    skipped: n('skipped'),
    shouldFailed: warned.length,
    ...(why ? { reason: `${why.id}: ${why.message}`.slice(0, 300) } : {}),
    ...(report ? { report } : {}),
  };
}

/** Builds the matrix from one run report per version (checks carry their suite). */
export function buildMatrix(
  perVersion: Array<{ version: string; report: RunReport; reportPath?: string }>,
  suites: string[],
): Matrix {
  return {
    versions: perVersion.map((p) => p.version),
    rows: suites.map((suite) => ({
      suite,
      cells: Object.fromEntries(
        perVersion.map((p) => [
          p.version,
          cellFor(
            p.report.checks.filter((c) => c.suite === suite),
            p.reportPath,
          ),
        ]),
      ),
    })),
  };
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
const ICON: Record<Status, string> = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' };

export function matrixToJson(m: Matrix): string {
  return `${JSON.stringify(m, null, 2)}\n`;
}

export function matrixToMarkdown(m: Matrix, title = 'credprov qualify'): string {
  const lines = [
    `# ${title}`,
    '',
    `| suite | ${m.versions.join(' | ')} |`,
    `|---|${m.versions.map(() => '---').join('|')}|`,
  ];
  for (const r of m.rows)
    lines.push(
      `| ${r.suite} | ${m.versions
        .map((v) => {
          const c = r.cells[v];
          return c
            ? `${ICON[c.status]} ${c.passed}/${c.passed + c.failed + c.skipped}${c.shouldFailed ? `, ${c.shouldFailed} SHOULD failed` : ''}`
            : '–';
        })
        .join(' | ')} |`,
    );
  const notes = m.rows.flatMap((r) =>
    m.versions.flatMap((v) =>
      r.cells[v]?.reason
        ? [`- **${r.suite} on ${v}** (${r.cells[v]!.status}): ${r.cells[v]!.reason!.replace(/\s+/g, ' ')}`]
        : [],
    ),
  );
  if (notes.length) lines.push('', '## Why', '', ...notes);
  return `${lines.join('\n')}\n`;
}

export function matrixToJunit(m: Matrix): string {
  const suites = m.versions.map((v) => {
    const cases = m.rows.map((r) => {
      const c = r.cells[v];
      const head = `    <testcase classname="credprov.qualify.${esc(v)}" name="${esc(r.suite)}">`;
      if (!c || c.status === 'passed') return `${head}</testcase>`;
      if (c.status === 'skipped') return `${head}<skipped message="${esc(c.reason ?? 'skipped')}"/></testcase>`;
      return `${head}<failure message="${esc(c.reason ?? 'failed')}"/></testcase>`;
    });
    const failures = m.rows.filter((r) => r.cells[v]?.status === 'failed').length;
    const skipped = m.rows.filter((r) => r.cells[v]?.status === 'skipped').length;
    return [
      `  <testsuite name="${esc(v)}" tests="${m.rows.length}" failures="${failures}" errors="0" skipped="${skipped}">`,
      ...cases,
      '  </testsuite>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites name="credprov qualify">',
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
