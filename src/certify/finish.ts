// The tail every `certify …` command shares: assemble the RunReport, write
// report.json / junit.xml / report.md, print a one-screen summary, pick the exit code.
import { CREDPROV_VERSION } from '../core/package-layout.ts';
import { defaultReportDir } from '../core/paths.ts';
import type { Redactor } from '../core/redact.ts';
import { exitCodeFor, summarize, type CheckResult, type RunReport } from '../report/model.ts';
import { writeReports } from '../report/write.ts';

export interface FinishOptions {
  command: string;
  subject: Record<string, unknown>;
  checks: CheckResult[];
  metrics?: Record<string, unknown>;
  startedAt: Date;
  reportDir?: string;
  cwd: string;
  redactor: Redactor;
  /** Human-readable summary lines go here (stderr by default, so stdout stays clean). */
  write: (s: string) => void;
}

export async function finishRun(o: FinishOptions): Promise<{ exitCode: number; report: RunReport; dir: string }> {
  const report: RunReport = {
    tool: { name: 'credprov', version: CREDPROV_VERSION, command: o.command },
    subject: o.subject,
    checks: o.checks,
    summary: summarize(o.checks),
    ...(o.metrics ? { metrics: o.metrics } : {}),
    startedAt: o.startedAt.toISOString(),
    durationMs: Date.now() - o.startedAt.getTime(),
  };
  const dir = o.reportDir ?? defaultReportDir(o.cwd, o.startedAt);
  await writeReports(report, dir, o.redactor);
  const safe = o.redactor.value(report);
  for (const c of safe.checks) {
    const tag = c.status === 'passed' ? 'PASS' : c.status === 'failed' ? 'FAIL' : 'SKIP';
    o.write(`${tag} ${c.level.padEnd(6)} ${c.id}: ${c.status === 'passed' ? c.title : c.message}\n`);
  }
  const { passed, failed, skipped } = report.summary;
  o.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped; report: ${dir}/report.md\n`);
  return { exitCode: exitCodeFor(report), report, dir };
}
