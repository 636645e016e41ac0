// The process provider: Debian's docker-registry (distribution 2.8) run as a
// child process of the harness, or detached for `credprov registry up`.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { PrerequisiteError } from '../src/core/errors.ts';
import { noopLogger, type Logger } from '../src/core/logger.ts';
import { terminate } from '../src/core/pids.ts';
import { spawnTied } from '../src/core/tied-child.ts';
import type { RegistryProvider } from './provider.ts';
import { Ready } from './ready.ts';
import { LISTENING, type RegistryRunner, type RunHandle } from './runner.ts';
import { HarnessRegistry } from './started.ts';

export const DEFAULT_BINARY = '/usr/bin/docker-registry';

export function processProvider(o: { binary?: string; logger?: Logger } = {}): RegistryProvider {
  const binary = o.binary ?? DEFAULT_BINARY;
  const present = () =>
    access(binary).then(
      () => true,
      () => false,
    );
  return {
    name: 'process',
    async isAvailable() {
      return (await present())
        ? { ok: true }
        : { ok: false, reason: `${binary} not found (apt-get install docker-registry)` };
    },
    async start(spec) {
      if (!(await present()))
        throw new PrerequisiteError(`the registry binary ${binary} is missing`, {
          hint: 'apt-get install docker-registry (distribution 2.8)',
        });
      return HarnessRegistry.start(processRunner(binary), { ...spec, logger: spec.logger ?? o.logger ?? noopLogger });
    },
  };
}

// Registries started in-process die with it, even when a test forgets stop().
const untilExit = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of untilExit) if (c.exitCode === null) c.kill('SIGKILL');
});

export function processRunner(binary: string): RegistryRunner {
  return {
    kind: 'process',
    async run(req) {
      const fd = openSync(req.logFile, 'a');
      // Plain spawn, not execa: a (possibly detached) daemon with raw log fds needs none of execa's result handling.
      // An in-process registry is tied to credprov: it dies with it even on SIGKILL, when no exit hook runs.
      const child = req.detached
        ? spawn(binary, ['serve', req.configPath], { detached: true, stdio: ['ignore', fd, fd] })
        : spawnTied(binary, ['serve', req.configPath], { stdio: ['ignore', fd, fd] });
      closeSync(fd);
      let exited: string | undefined;
      child.on('error', (err) => {
        exited = `could not run ${binary}: ${err.message}`;
      });
      child.on('exit', (code, signal) => {
        untilExit.delete(child);
        // No log path here: the caller inlines the log's tail, and may have removed it by then.
        exited = `registry process exited (${signal ?? `code ${code}`})`;
      });
      if (req.detached) child.unref();
      else untilExit.add(child);
      if (child.pid === undefined) {
        await new Promise((r) => setImmediate(r));
        throw new PrerequisiteError(exited ?? `could not start ${binary}`);
      }
      const handle: RunHandle = { process: { pid: child.pid, match: req.configPath } };
      await req.record(handle);
      await Ready.all(Ready.logLine(LISTENING), req.ready).wait({
        ...req.target,
        logFile: req.logFile,
        exited: () => exited,
      });
      return handle;
    },
    async stop(h) {
      if (h.process) await terminate(h.process);
    },
  };
}
