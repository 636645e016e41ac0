// credprov report merge: joins the report dirs of `qualify --shard I/N` runs
// (one per CI runner) into the report dir an unsharded qualify writes.
import { join, resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { Redactor } from '../core/redact.ts';
import { exitCodeFor } from '../report/model.ts';
import { prepareReportDir } from '../report/report-dir.ts';
import { mergeShards, readShards } from '../run/qualify-merge.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';
import { printJson, reportJson, writeMatrixSummary } from './output.ts';

const USAGE = `Usage: credprov report merge DIR... [--report-dir OUT]

Joins the report dirs of 'credprov qualify --shard I/N' runs, one per shard,
into the report dir an unsharded 'qualify' writes (default reports/<timestamp>):
  <version>/report.{json,xml,md,html}   one report per version (artifacts copied)
  matrix.{json,xml,md}                  suite × version: pass, fail or skip with the reason
  report.{json,xml,md,html}             every check of every version; report.html shows the matrix

Each DIR holds a shard.json naming its plan (versions, suites, a hash) and its
shard. Refused (exit 2, one line naming the dir and the field): shards of
different plans or shard counts, a shard given twice, a shard missing (the
line lists the cells without a result), or one version run as two releases.

Stdout: one JSON line, {reportDir, report, summary, failed, exitCode, matrix}.
Exit: 0 every MUST check passed on every version, 1 one failed (or no check ran), 2 bad input.
`;

export const command: Command = {
  path: ['report', 'merge'],
  summary: "join the report dirs of 'qualify --shard I/N' runs into one suite × version matrix",
  usage: USAGE,
  async run(argv, ctx) {
    const { values, positionals } = parseFlags<{ 'report-dir'?: string }>(
      'report merge',
      argv,
      { 'report-dir': { type: 'string' } },
      { positionals: true },
    );
    if (positionals.length === 0)
      throw new UsageError('report merge: name the shard report dirs (credprov report merge DIR... --report-dir OUT)', {
        hint: "run 'credprov report merge --help'",
      });
    const dirs = positionals.map((d) => resolve(ctx.cwd, d));
    // Refused before anything is written: a bad merge leaves no half-written OUT behind.
    const shards = await readShards(dirs);
    const out = values['report-dir'] !== undefined ? resolve(ctx.cwd, values['report-dir']) : undefined;
    if (out && dirs.includes(out))
      throw new UsageError(`report merge: --report-dir ${out} is one of the shard dirs; merging would overwrite it`);
    const reportDir = await prepareReportDir(values['report-dir'], ctx.cwd);
    const { matrix, aggregate } = await mergeShards(shards, reportDir, new Redactor());
    const w = (s: string) => process.stderr.write(s);
    writeMatrixSummary(matrix, w);
    w(`\nmatrix: ${join(reportDir, 'matrix.md')}; merged from ${shards.length} shards\n`);
    const code = aggregate.checks.length === 0 ? 1 : exitCodeFor(aggregate);
    printJson(ctx, {
      ...reportJson(reportDir, aggregate.checks, aggregate.summary, code),
      matrix: join(reportDir, 'matrix.json'),
    });
    return code;
  },
};
