// What every scripts/certify-<plugin>.ts does around its lab: parse --live and
// --report-dir (plus the script's own flags), start the lab in a temp dir, run
// `credprov certify` on the argv the lab gives (echoed to stderr, so the page
// can quote it), stop the lab and remove the dir whatever happened, and exit
// with certify's code.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { main } from '../cli/main.ts';
import { stderrProgress, type Progress } from '../core/progress.ts';

type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

export async function runCertifyScript<Lab extends { stop(): Promise<void> }>(o: {
  /** The plugin's short name: the temp dir's. */
  name: string;
  start(lab: { dir: string; progress: Progress }): Promise<Lab>;
  /** certify's argv for the lab, without --live and --report-dir; `values` has the script's own flags. */
  argv(lab: Lab, values: Values): string[];
  options?: ParseArgsConfig['options'];
}): Promise<never> {
  const { values } = parseArgs({
    options: {
      ...o.options,
      'report-dir': { type: 'string' },
      live: { type: 'boolean', default: false },
    },
  });
  const work = await mkdtemp(join(tmpdir(), `credprov-certify-${o.name}-`));
  let code: number;
  try {
    const lab = await o.start({ dir: work, progress: stderrProgress() });
    try {
      const argv = [
        ...o.argv(lab, values),
        ...(values.live ? ['--live'] : []),
        ...(typeof values['report-dir'] === 'string' ? ['--report-dir', resolve(values['report-dir'])] : []),
      ];
      process.stderr.write(`credprov ${argv.join(' ')}\n`);
      code = await main(argv);
    } finally {
      await lab.stop();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  process.exit(code);
}
