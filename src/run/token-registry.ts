// A registry whose token server decides what a login may pull through an
// authenticator the suite sets once the cluster is up (the service-account
// token exchange of KEP-4412: registry/sa-token-auth.ts), with the test image
// under `repositories`. Stopped after the suite; its log and its token server's
// lines (each grant: account and scopes, never a password) are kept, redacted,
// in the suite's artifacts, not on the console.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Auth, busyboxImage, processProvider, type StartedRegistry } from '../../registry/index.ts';
import { memoryLogger, type Logger } from '../core/logger.ts';
import type { SuiteSetup } from './suite.ts';

export async function startTokenRegistry(
  ctx: SuiteSetup,
  name: string,
  o: {
    repositories: string[];
    marker: string;
    /** Its logs are kept as `<logsAs>-registry.log` and `<logsAs>-token-server.log`. */ logsAs: string;
  },
): Promise<StartedRegistry> {
  const tokenServerLines: string[] = [];
  const logger = quietLogger(ctx.log, tokenServerLines);
  const registry = await processProvider({ logger }).start({
    name,
    auth: Auth.token({ users: [] }),
    tls: true,
    logger,
    progress: ctx.progress,
  });
  ctx.defer(async () => {
    const log = await readFile(registry.logFile, 'utf8').catch(() => undefined);
    if (log !== undefined)
      await writeFile(join(ctx.artifactsDir, `${o.logsAs}-registry.log`), ctx.redactor.text(log)).catch(() => {});
    if (tokenServerLines.length)
      await writeFile(
        join(ctx.artifactsDir, `${o.logsAs}-token-server.log`),
        ctx.redactor.text(`${tokenServerLines.join('\n')}\n`),
      ).catch(() => {});
    await registry.stop();
  });
  const image = await busyboxImage({ marker: o.marker });
  for (const repository of o.repositories) await registry.push(image, { name: repository, tag: 'v1' });
  return registry;
}

/** Every line into `lines`; warnings and errors also to `log`. */
function quietLogger(log: Logger, lines: string[]): Logger {
  const memory = memoryLogger(lines);
  const quiet: Logger = {
    ...memory,
    warn: (m) => (memory.warn(m), log.warn(m)),
    error: (m) => (memory.error(m), log.error(m)),
    child: () => quiet,
  };
  return quiet;
}
