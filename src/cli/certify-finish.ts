// The end of every `credprov certify …` command: finishRun writes the reports
// and the summary (stderr, for people); stdout gets only the path of
// report.json, the one line a CI script reads to find the results, or with
// --json where the report is and what it says.
import { join } from 'node:path';
import { finishRun, type FinishOptions } from '../certify/finish.ts';
import type { CommandContext } from './command.ts';
import { printJson, reportJson } from './output.ts';

export async function finishCertify(ctx: CommandContext, o: Omit<FinishOptions, 'cwd' | 'write'>): Promise<number> {
  const { exitCode, dir, report } = await finishRun({ ...o, cwd: ctx.cwd, write: (s) => process.stderr.write(s) });
  if (ctx.json) printJson(ctx, reportJson(dir, report.checks, report.summary, exitCode));
  else ctx.stdout(`${join(dir, 'report.json')}\n`);
  return exitCode;
}
