// A directory plugins can read and write wherever they run: in the exchange
// dir, which kind nodes mount at the same path (on the local provider it is
// just a dir on this host). Private (0700), removed after the suite.
import { randomBytes } from 'node:crypto';
import { mkdir, rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { exchangeDir } from '../core/paths.ts';
import type { SuiteSetup } from './suite.ts';

export async function pluginDir(ctx: SuiteSetup, label: string): Promise<string> {
  const dir = join(exchangeDir(ctx.processEnv), ctx.environmentName, `${label}-${randomBytes(3).toString('hex')}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  ctx.defer(async () => {
    await rm(dir, { recursive: true, force: true });
    await rmdir(dirname(dir)).catch(() => undefined); // the environment's, once no other suite's files are there
  });
  return dir;
}
