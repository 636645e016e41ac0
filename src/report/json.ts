import type { RunReport } from './model.ts';

/** report.json: the fixed machine interface (tool, subject, checks, summary; for credprov run also suites, and per check its suite, comparison and table cell). */
export function toJson(report: RunReport): string {
  const checks = report.checks.map((c) => ({
    id: c.id,
    title: c.title,
    level: c.level,
    status: c.status,
    message: c.message,
    source: c.source,
    ...(c.cause ? { cause: c.cause } : {}),
    ...(c.suite ? { suite: c.suite } : {}),
    ...(c.comparison ? { comparison: c.comparison } : {}),
    ...(c.cell ? { cell: c.cell } : {}),
    durationMs: c.durationMs,
    evidence: c.evidence,
  }));
  return `${JSON.stringify({ tool: report.tool, subject: report.subject, checks, summary: report.summary, ...(report.suites ? { suites: report.suites } : {}), metrics: report.metrics ?? {}, startedAt: report.startedAt, durationMs: report.durationMs }, null, 2)}\n`;
}
