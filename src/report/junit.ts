import type { CheckResult, RunReport } from './model.ts';

const esc = (s: string) =>
  s
    .replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch]!)
    // XML 1.0 forbids most control characters even when escaped.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

function evidenceText(c: CheckResult): string {
  return c.evidence.map((e) => `--- ${e.label}\n${'text' in e ? e.text : JSON.stringify(e.data, null, 2)}`).join('\n');
}

/** junit.xml: one testsuite per run (per suite for credprov run), one testcase per check, classname = check level. */
export function toJunit(report: RunReport): string {
  if (report.suites?.length) return toJunitSuites(report);
  const { passed, failed, skipped } = report.summary;
  const cases = report.checks.map(testcase);
  const errors = report.checks.filter((c) => c.status === 'failed' && c.cause === 'harness').length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${passed + failed + skipped}" failures="${failed - errors}" errors="${errors}" skipped="${skipped}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    `  <testsuite name="${esc(report.tool.command)}" tests="${passed + failed + skipped}" failures="${failed - errors}" errors="${errors}" skipped="${skipped}" timestamp="${esc(report.startedAt)}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** credprov run: a testsuite per conformance suite, with its own counts and wall time. */
function toJunitSuites(report: RunReport): string {
  const { passed, failed, skipped } = report.summary;
  const allErrors = report.checks.filter((c) => c.status === 'failed' && c.cause === 'harness').length;
  const suites = (report.suites ?? []).map((s) => {
    const cs = report.checks.filter((c) => c.suite === s.name);
    const n = (st: string) => cs.filter((c) => c.status === st).length;
    const errors = cs.filter((c) => c.status === 'failed' && c.cause === 'harness').length;
    return [
      `  <testsuite name="${esc(s.name)}" tests="${cs.length}" failures="${n('failed') - errors}" errors="${errors}" skipped="${n('skipped')}" timestamp="${esc(report.startedAt)}" time="${(s.durationMs / 1000).toFixed(3)}">`,
      ...cs.map(testcase),
      '  </testsuite>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${esc(report.tool.command)}" tests="${passed + failed + skipped}" failures="${failed - allErrors}" errors="${allErrors}" skipped="${skipped}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

function testcase(c: CheckResult): string {
  const name = esc(`${c.id}: ${c.title}`);
  const head = `    <testcase classname="credprov.${esc(c.suite ?? c.level)}" name="${name}" time="${(c.durationMs / 1000).toFixed(3)}">`;
  if (c.status === 'passed') return `${head}</testcase>`;
  if (c.status === 'skipped') return `${head}<skipped message="${esc(c.message)}"/></testcase>`;
  const tag = c.cause === 'harness' ? 'error' : 'failure';
  return `${head}\n      <${tag} message="${esc(c.message)}" type="${c.level}">${esc(evidenceText(c))}</${tag}>\n    </testcase>`;
}
