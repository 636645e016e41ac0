// Long-running components (etcd, kube-apiserver, containerd, kubelet) outlive
// the `credprov up` command that starts them, so each one is a detached
// process whose pid sits in a file; `down` finds them there, even after a
// crashed run. Output goes to logs/<name>.log, never to the console.
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { spawn } from 'node:child_process';
import { CommandError, TimeoutError, tail } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { isAlive, isZombie, terminatePid } from '../../core/pids.ts';
import { sleep } from '../../core/time.ts';

export interface DaemonSpec {
  name: string;
  bin: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface Daemon {
  name: string;
  pid: number;
  logFile: string;
}

export async function startDaemon(
  spec: DaemonSpec,
  dirs: { pids: string; logs: string },
  log: Logger,
): Promise<Daemon> {
  await mkdir(dirs.pids, { recursive: true });
  await mkdir(dirs.logs, { recursive: true });
  const logFile = join(dirs.logs, `${spec.name}.log`);
  const fd = openSync(logFile, 'a');
  try {
    log.debug(`starting ${spec.name}: ${spec.bin} ${spec.args.join(' ')}`);
    // node's spawn, not execa: a daemon must outlive this process, so there is no result to
    // await and nothing may reject later inside a long-lived test process.
    const child = spawn(spec.bin, spec.args, {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...process.env, ...spec.env },
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
    });
    const spawnError = await new Promise<Error | undefined>((resolve) => {
      child.once('error', resolve);
      child.once('spawn', () => resolve(undefined));
    });
    child.unref();
    const pid = child.pid;
    if (spawnError || pid === undefined) {
      throw new CommandError(`could not start ${spec.name}: ${spawnError?.message ?? 'no pid'}`, {
        argv: [spec.bin, ...spec.args],
      });
    }
    await writeFile(join(dirs.pids, `${spec.name}.pid`), `${pid}\n${spec.bin}\n`);
    return { name: spec.name, pid, logFile };
  } finally {
    closeSync(fd);
  }
}

/** The pid recorded for `name`, if that process still runs the same binary (a recycled pid is not ours). */
export async function recordedPid(pidsDir: string, name: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(join(pidsDir, `${name}.pid`), 'utf8');
  } catch {
    return undefined;
  }
  const [pidLine, bin] = text.split('\n');
  const pid = Number(pidLine);
  if (!Number.isInteger(pid) || pid <= 1 || !isAlive(pid)) return undefined;
  if (bin) {
    try {
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')[0] ?? '';
      if (basename(cmdline) !== basename(bin)) return undefined;
    } catch {
      return undefined;
    }
  }
  return pid;
}

/** SIGTERM, then SIGKILL after `graceMs`; removes the pid file. Idempotent. */
export async function stopDaemon(pidsDir: string, name: string, graceMs = 5000): Promise<boolean> {
  const pid = await recordedPid(pidsDir, name);
  if (pid !== undefined) await terminatePid(pid, { graceMs, killWaitMs: 2000 });
  await rm(join(pidsDir, `${name}.pid`), { force: true });
  return pid !== undefined;
}

/** The daemons among `names` that run now (from their pid files), for waitFor to watch. */
export async function runningDaemons(dirs: { pids: string; logs: string }, names: string[]): Promise<Daemon[]> {
  const found = await Promise.all(
    names.map(async (name) => {
      const pid = await recordedPid(dirs.pids, name);
      return pid === undefined ? undefined : { name, pid, logFile: join(dirs.logs, `${name}.log`) };
    }),
  );
  return found.filter((d): d is Daemon => d !== undefined);
}

/**
 * Polls `probe` until it returns true. While waiting, a dead daemon (the one
 * awaited, or one it depends on) ends the wait at once with its log tail, so
 * a crash is reported as a crash, not a timeout.
 */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  opts: {
    timeoutMs: number;
    intervalMs?: number;
    daemon?: Daemon;
    dependsOn?: Daemon[];
    signal?: AbortSignal | undefined;
  },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  const watched = [...(opts.daemon ? [opts.daemon] : []), ...(opts.dependsOn ?? [])];
  for (;;) {
    // An interrupted `up` stops waiting at once; its caller tears down what was started.
    opts.signal?.throwIfAborted();
    if (await probe().catch(() => false)) return;
    const dead = watched.find((d) => !isAlive(d.pid) || isZombie(d.pid));
    if (dead) {
      const log = await readFile(dead.logFile, 'utf8').catch(() => '');
      const why = fatalLine(log);
      throw new CommandError(`${dead.name} exited while waiting for ${what}${why ? `: ${why}` : ''}`, {
        argv: [dead.name],
        output: tail(log, 30),
        hint: `full log: ${dead.logFile}`,
      });
    }
    if (Date.now() > deadline) {
      const detail = opts.daemon ? await logTail(opts.daemon.logFile, 30) : undefined;
      throw new TimeoutError(`${what} did not happen within ${Math.round(opts.timeoutMs / 1000)}s`, {
        ...(detail ? { detail } : {}),
        ...(opts.daemon ? { hint: `full log: ${opts.daemon.logFile}` } : {}),
      });
    }
    await sleep(opts.intervalMs ?? 200);
  }
}

/**
 * The line of a dead component's log that says why it died: a Go panic, a
 * klog fatal, the "command failed" line of Kubernetes binaries, else the last
 * error line. Go stacks follow a panic, so the log's tail alone rarely says it.
 */
export function fatalLine(log: string, o: { lastErrorToo?: boolean } = {}): string | undefined {
  const lines = log.split('\n');
  const pick = (re: RegExp) => [...lines].reverse().find((l) => re.test(l));
  const fatal = pick(/^panic: /) ?? pick(/"command failed"/) ?? pick(/^F\d{4} /) ?? pick(/level=fatal/);
  // A component that died while waited on most likely failed its start: its last error says why. One that died
  // under a run may just have been killed, and its last error is then an ordinary one (a pull a check expected to fail).
  const line = fatal ?? (o.lastErrorToo === false ? undefined : pick(/^(E\d{4} |Error: |error: )|level=error/));
  if (!line) return undefined;
  const err = /err="((?:[^"\\]|\\.)*)"/.exec(line)?.[1];
  const text = err ?? line.replace(/^[EF]\d{4} [\d:.]+\s+\d+ \S+\] /, '');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export async function logTail(file: string, lines: number): Promise<string> {
  try {
    return tail(await readFile(file, 'utf8'), lines);
  } catch {
    return '';
  }
}
