// A private containerd for registry pull tests (registry/ e2e): its own root, state, socket
// and certs.d under one temp dir, so it never meets the cluster's containerd.
// Binaries: $CREDPROV_CONTAINERD_DIR, else the newest cached build
// (<cacheDir>/containerd/<version>/), else containerd/ctr on PATH.
import { spawn, type ChildProcess } from 'node:child_process';
import { access, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { closeSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { cacheDir } from '../core/paths.ts';
import { TimeoutError, tail } from '../core/errors.ts';
import { stopChild } from '../core/stop-child.ts';

export interface ContainerdBins {
  dir: string;
  containerd: string;
  ctr: string;
}

export async function findContainerd(
  env: NodeJS.ProcessEnv = process.env,
): Promise<ContainerdBins | { missing: string }> {
  const has = (p: string) =>
    access(p).then(
      () => true,
      () => false,
    );
  const inDir = async (dir: string) =>
    (await has(join(dir, 'containerd'))) && (await has(join(dir, 'ctr')))
      ? { dir, containerd: join(dir, 'containerd'), ctr: join(dir, 'ctr') }
      : undefined;
  if (env.CREDPROV_CONTAINERD_DIR)
    return (
      (await inDir(env.CREDPROV_CONTAINERD_DIR)) ?? {
        missing: `no containerd and ctr in CREDPROV_CONTAINERD_DIR=${env.CREDPROV_CONTAINERD_DIR}`,
      }
    );
  const root = join(cacheDir(env), 'containerd');
  const versions = (await readdir(root).catch(() => [] as string[]))
    .filter((v) => /^v\d/.test(v))
    .sort((a, b) => b.localeCompare(a, undefined, { numeric: true }));
  for (const v of versions) {
    const found = await inDir(join(root, v));
    if (found) return found;
  }
  for (const d of (env.PATH ?? '').split(delimiter)) {
    const found = d ? await inDir(d) : undefined;
    if (found) return found;
  }
  return {
    missing: `containerd not found in ${root}/<version>/ or on PATH (credprov binaries ensure builds it; apt-get install containerd also works)`,
  };
}

export interface PullResult {
  ok: boolean;
  exitCode: number | undefined;
  /** ctr's output without containerd's cgroup v1 deprecation noise. */
  output: string;
}

export class PrivateContainerd {
  readonly dir: string;
  readonly socket: string;
  readonly hostsDir: string;
  readonly logFile: string;
  private readonly bins: ContainerdBins;
  private child: ChildProcess | undefined;

  private constructor(bins: ContainerdBins, dir: string) {
    this.bins = bins;
    this.dir = dir;
    this.socket = join(dir, 'containerd.sock');
    this.hostsDir = join(dir, 'certs.d');
    this.logFile = join(dir, 'containerd.log');
  }

  static async start(bins: ContainerdBins, timeoutMs = 15_000): Promise<PrivateContainerd> {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-containerd-'));
    const c = new PrivateContainerd(bins, dir);
    try {
      await c.run(timeoutMs);
      return c;
    } catch (err) {
      await c.stop();
      throw err;
    }
  }

  private async run(timeoutMs: number): Promise<void> {
    const config = join(this.dir, 'config.toml');
    // No CRI: these tests pull through containerd's resolver; pods are the cluster's business.
    await writeFile(
      config,
      [
        'version = 3',
        `root = "${join(this.dir, 'root')}"`,
        `state = "${join(this.dir, 'state')}"`,
        'disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime", "io.containerd.cri.v1.images", "io.containerd.nri.v1.nri"]',
        '[grpc]',
        `  address = "${this.socket}"`,
        '[ttrpc]',
        `  address = "${this.socket}.ttrpc"`,
        '[debug]',
        '  address = ""',
        '[metrics]',
        '  address = ""',
        '',
      ].join('\n'),
    );
    const fd = openSync(this.logFile, 'a');
    this.child = spawn(this.bins.containerd, ['--config', config], {
      stdio: ['ignore', fd, fd],
      env: { ...process.env, PATH: `${this.bins.dir}${delimiter}${process.env.PATH ?? ''}` },
    });
    closeSync(fd);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) break;
      const r = await execa(this.bins.ctr, ['--address', this.socket, 'version'], { reject: false });
      if (r.exitCode === 0) return;
      await sleep(100);
    }
    const log = await readFile(this.logFile, 'utf8').catch(() => '');
    throw new TimeoutError(`private containerd did not serve ${this.socket} within ${timeoutMs} ms`, {
      detail: tail(log, 20),
    });
  }

  ctr(args: string[], namespace = 'credprov') {
    return execa(this.bins.ctr, ['--address', this.socket, '--namespace', namespace, ...args], {
      reject: false,
      all: true,
      timeout: 60_000,
      env: { PATH: `${this.bins.dir}${delimiter}${process.env.PATH ?? ''}` },
    });
  }

  /** `ctr images pull` as containerd's resolver does it: hosts dir for TLS/plain http, --user for credentials. */
  async pull(
    ref: string,
    o: { credentials?: { username: string; password: string }; plainHttp?: boolean; local?: boolean } = {},
  ): Promise<PullResult> {
    const args = ['images', 'pull', '--hosts-dir', this.hostsDir];
    if (o.plainHttp) args.push('--plain-http');
    if (o.local) args.push('--local');
    if (o.credentials) args.push('--user', `${o.credentials.username}:${o.credentials.password}`);
    const r = await this.ctr([...args, ref]);
    return { ok: r.exitCode === 0, exitCode: r.exitCode, output: clean(String(r.all ?? '')) };
  }

  /** Runs the image once and returns its output (the busybox image prints its marker). */
  async runOnce(ref: string, id: string): Promise<PullResult> {
    const r = await this.ctr(['run', '--rm', ref, id]);
    return { ok: r.exitCode === 0, exitCode: r.exitCode, output: clean(String(r.all ?? '')) };
  }

  async stop(): Promise<void> {
    const c = this.child;
    this.child = undefined;
    await stopChild(c, 5000);
    // Shims hold mounts under root/state only while tasks run; --rm runs leave none.
    await rm(this.dir, { recursive: true, force: true });
  }
}

function clean(out: string): string {
  return out
    .split('\n')
    .filter((l) => !l.includes('DEPRECATION'))
    .join('\n')
    .trim();
}
