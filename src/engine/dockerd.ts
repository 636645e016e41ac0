// A private Docker daemon for the container tier's tests: data root, exec
// root, pidfile, socket, config file and trust key under one temp dir; no
// bridge, no iptables rules, no ip_forward, so it changes nothing on the
// host's network (registries use host networking). The system's Docker
// config (/etc/docker/daemon.json) is not read, /etc/docker/key.json not
// written. dockerd starts its own containerd under the exec root, unless one
// serves /run/containerd/containerd.sock (setup.sh keeps Debian's stopped).
//
// Cleanup, also after a crash: stop() ends dockerd (which stops its
// containers), unmounts what is left under the dir and removes it. On 'exit'
// dockerd gets SIGTERM at once; Ctrl-C reaches it directly (same process
// group). A dir whose owner died is swept by the next start(): its daemon
// stopped, its mounts and files removed.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { access, mkdtemp, readdir, readFile, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { TimeoutError, tail } from '../core/errors.ts';
import { noopLogger, type Logger } from '../core/logger.ts';
import { isAlive, pidExists, terminatePid } from '../core/pids.ts';
import { stopChild } from '../core/stop-child.ts';
import { pingDocker } from './docker-runtime.ts';

/** Debian's docker.io puts dockerd in /usr/sbin, docker-ce in /usr/bin. */
export async function findDockerd(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  return findExecutable('dockerd', [...(env.PATH ?? '').split(delimiter), '/usr/sbin']);
}

/** The first `dirs/name` this process may execute. */
export async function findExecutable(name: string, dirs: string[]): Promise<string | undefined> {
  for (const d of dirs.filter(Boolean)) {
    if (
      await access(join(d, name), constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return join(d, name);
  }
  return undefined;
}
const DIR_PREFIX = 'credprov-dockerd-';
/** dockerd's own grace for its containers on shutdown (distribution exits at once on SIGTERM). */
const SHUTDOWN_TIMEOUT_S = 5;
/** Ours to wait for dockerd after SIGTERM: its containers' grace plus its own cleanup. */
const STOP_GRACE_MS = 20_000;
/** A dir younger than this without an owner file may be another process's, just created. */
const UNOWNED_AGE_MS = 60_000;

/** dockerd's flags for a daemon confined to `dir` (its data root too, unless `dataRoot` puts it elsewhere). */
export function dockerdArgs(dir: string, o: { dataRoot?: string } = {}): string[] {
  return [
    '--config-file',
    join(dir, 'daemon.json'),
    '--data-root',
    o.dataRoot ?? join(dir, 'data'),
    '--exec-root',
    join(dir, 'exec'),
    '--pidfile',
    join(dir, 'docker.pid'),
    '-H',
    `unix://${join(dir, 'docker.sock')}`,
    '--bridge=none',
    '--iptables=false',
    '--ip6tables=false',
    '--ip-masq=false',
    '--ip-forward=false',
    '--shutdown-timeout',
    String(SHUTDOWN_TIMEOUT_S),
  ];
}

/** daemon.json: before Docker 23, dockerd keeps a trust key in /etc/docker unless this (config-file only) key moves it. */
export function daemonConfig(dir: string, dockerdMajor: number | undefined): Record<string, string> {
  return dockerdMajor !== undefined && dockerdMajor < 23 ? { 'deprecated-key-path': join(dir, 'key.json') } : {};
}

// Daemons of this process, signalled on exit so none outlives a crashed test for long.
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) if (c.exitCode === null) c.kill('SIGTERM');
});

export class PrivateDockerd {
  readonly dir: string;
  /** DOCKER_HOST for this daemon. */
  readonly host: string;
  private child: ChildProcess | undefined;
  private stopping: Promise<void> | undefined;

  private constructor(dir: string) {
    this.dir = dir;
    this.host = `unix://${join(dir, 'docker.sock')}`;
  }

  /** dockerd and the containerd it starts (Debian's docker.io brings both); root, for mounts and cgroups. */
  static async available(
    o: { dockerd?: string; env?: NodeJS.ProcessEnv } = {},
  ): Promise<{ ok: boolean; reason?: string }> {
    const env = o.env ?? process.env;
    const dockerd = o.dockerd ?? (await findDockerd(env));
    if (
      !dockerd ||
      !(await access(dockerd, constants.X_OK).then(
        () => true,
        () => false,
      ))
    )
      return {
        ok: false,
        reason: `${o.dockerd ?? 'dockerd'} not found (apt-get install docker.io, or scripts/setup.sh --kind)`,
      };
    if (!(await findExecutable('containerd', (env.PATH ?? '').split(delimiter))))
      return {
        ok: false,
        reason: 'containerd is not on PATH; dockerd starts it (apt-get install docker.io brings it)',
      };
    if (process.getuid?.() !== 0) return { ok: false, reason: 'a Docker daemon must run as root' };
    return { ok: true };
  }

  static async start(o: { dockerd?: string; timeoutMs?: number; logger?: Logger } = {}): Promise<PrivateDockerd> {
    const log = o.logger ?? noopLogger;
    await sweepPrivateDockerds({ logger: log });
    const dockerd = o.dockerd ?? (await findDockerd()) ?? 'dockerd';
    const d = new PrivateDockerd(await mkdtemp(join(tmpdir(), DIR_PREFIX)));
    await writeFile(join(d.dir, 'owner'), `${process.pid}\n`);
    await writeFile(
      join(d.dir, 'daemon.json'),
      `${JSON.stringify(daemonConfig(d.dir, await dockerdMajor(dockerd)))}\n`,
    );
    const logFile = join(d.dir, 'dockerd.log');
    const fd = openSync(logFile, 'a');
    try {
      d.child = spawn(dockerd, dockerdArgs(d.dir), { stdio: ['ignore', fd, fd] });
    } finally {
      closeSync(fd);
    }
    let spawnError: Error | undefined;
    d.child.on('error', (err) => (spawnError = err));
    live.add(d.child);
    const deadline = Date.now() + (o.timeoutMs ?? 30_000);
    while (Date.now() < deadline && d.child.exitCode === null && !spawnError) {
      if ((await pingDocker(d.host, 2000)).ok) return d;
      await sleep(100);
    }
    const why = spawnError
      ? `could not be started (${spawnError.message})`
      : d.child.exitCode !== null
        ? `exited (code ${d.child.exitCode})`
        : `did not answer within ${o.timeoutMs ?? 30_000} ms`;
    const text = await readFile(logFile, 'utf8').catch(() => '');
    await d.stop();
    throw new TimeoutError(`private dockerd on ${d.host} ${why}`, { detail: tail(text, 20) });
  }

  /** Idempotent: dockerd stops its containers and unmounts; what is left is unmounted and removed. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const c = this.child;
      this.child = undefined;
      await stopChild(c, STOP_GRACE_MS);
      if (c) live.delete(c);
      await removeDaemonDir(this.dir, { daemonStopped: c !== undefined });
    })();
    return this.stopping;
  }
}

async function dockerdMajor(dockerd: string): Promise<number | undefined> {
  const r = await execa(dockerd, ['--version'], { reject: false });
  const m = /version (\d+)\./.exec(String(r.stdout));
  return m ? Number(m[1]) : undefined;
}

/**
 * Stops and removes the private daemons of processes that died without
 * stop() (a killed test run): the part of Ryuk's job a private daemon needs.
 * Returns the dirs removed.
 */
export async function sweepPrivateDockerds(
  o: { root?: string; logger?: Logger; now?: number } = {},
): Promise<string[]> {
  const root = o.root ?? tmpdir();
  const log = o.logger ?? noopLogger;
  const removed: string[] = [];
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = join(root, name);
    const owner = Number((await readFile(join(dir, 'owner'), 'utf8').catch(() => '')).trim());
    if (
      owner > 0
        ? pidExists(owner)
        : (o.now ?? Date.now()) -
            (await stat(dir).then(
              (s) => s.mtimeMs,
              () => 0,
            )) <
          UNOWNED_AGE_MS
    )
      continue;
    log.info(`removing private dockerd ${dir}: its owner${owner > 0 ? `, pid ${owner},` : ''} is gone`);
    const pid = Number((await readFile(join(dir, 'docker.pid'), 'utf8').catch(() => '')).trim());
    const running = pid > 0 && (await cmdline(pid)).includes(dir);
    if (running)
      await terminatePid(pid, {
        graceMs: STOP_GRACE_MS,
        killWaitMs: 2000,
        stillOurs: async () => (await cmdline(pid)).includes(dir),
      });
    await removeDaemonDir(dir, { daemonStopped: running });
    removed.push(dir);
  }
  return removed;
}

/** After dockerd is gone: processes still naming the dir (its containerd, shims, had it been killed) with their children, then mounts, then files. */
async function removeDaemonDir(dir: string, o: { daemonStopped: boolean }): Promise<void> {
  const leftovers = await processesNaming(dir);
  for (const pid of await withDescendants(leftovers)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  for (const pid of leftovers) for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(20);
  // Deepest first: overlay mounts of containers under data/, netns and shm under exec/.
  const mounts = (await readFile('/proc/mounts', 'utf8'))
    .split('\n')
    .map((l) => unescapeMount(l.split(' ')[1] ?? ''))
    .filter((m) => m === dir || m.startsWith(`${dir}/`))
    .reverse();
  for (const m of mounts) await execa('umount', ['-l', m], { reject: false });
  await rm(dir, { recursive: true, force: true });
  // dockerd creates this plugin socket dir whatever its exec root; only an empty one is ours to take back.
  if (o.daemonStopped)
    await rmdir('/run/docker/plugins')
      .then(() => rmdir('/run/docker'))
      .catch(() => {});
}

async function cmdline(pid: number): Promise<string> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').join(' ');
}

async function processesNaming(text: string): Promise<number[]> {
  const out: number[] = [];
  for (const p of await readdir('/proc')) {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) continue;
    if ((await cmdline(Number(p))).includes(text)) out.push(Number(p));
  }
  return out;
}

/** The pids and every descendant (by parent pid in /proc/<pid>/stat), children first. */
async function withDescendants(pids: number[]): Promise<number[]> {
  if (pids.length === 0) return [];
  const parent = new Map<number, number>();
  for (const p of await readdir('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    const s = await readFile(`/proc/${p}/stat`, 'utf8').catch(() => '');
    const ppid = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parent.set(Number(p), ppid);
  }
  const out: number[] = [];
  const visit = (pid: number) => {
    for (const [child, pp] of parent) if (pp === pid && !out.includes(child)) visit(child);
    if (!out.includes(pid)) out.push(pid);
  };
  for (const p of pids) visit(p);
  return out;
}

/** /proc/mounts writes space, tab, newline and backslash as octal escapes. */
function unescapeMount(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}
