// A started harness registry, whatever runs it: the harness writes its
// config.yml, storage, certs, htpasswd or token server, /etc/hosts line and
// state into the registry's dir, and a RegistryRunner (a process, or a
// container) runs distribution on that config. Token mode adds the harness's
// token server, in-process for tests, or as a detached node process for
// `registry up`.
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { CredprovError, tail, wrap } from '../src/core/errors.ts';
import { runnableModule } from '../src/core/package-layout.ts';
import { HostsFile } from '../src/core/hosts.ts';
import { noopLogger, type Logger } from '../src/core/logger.ts';
import { silentProgress } from '../src/core/progress.ts';
import { generatedUser, type AuthSpec, type User } from './auth.ts';
import { RegistryClient, type Credentials } from './client.ts';
import { registryConfig } from './config.ts';
import { htpasswdFile } from './htpasswd.ts';
import type { BuiltImage } from './image/build.ts';
import { freePort } from '../src/core/ports.ts';
import {
  defaultHostname,
  NAME_RE,
  type AuthInfo,
  type RegistrySpec,
  type StartedRegistry,
  type UserAdmin,
} from './provider.ts';
import type { RegistryRunner, RunHandle } from './runner.ts';
import { Ready, type ReadyCheck } from './ready.ts';
import {
  hostsOwner,
  IN_PROCESS_DIR_PREFIX,
  pruneRegistryHosts,
  teardown,
  writeState,
  type RegistryState,
} from './state.ts';
import { trustForContainerd } from '../src/engine/containerd-hosts.ts';
import { createCA, createSigningPair, issueServerCert } from '../src/core/tls.ts';
import { MemoryUsers, TokenServer } from './token-server.ts';
import type { TokenServerConfig } from './token-server-main.ts';

const TOKEN_MAIN = runnableModule('./token-server-main.ts', import.meta.url);

const ADMIN = 'credprov-admin';

/** This process's own registries (not `registry up`'s detached ones), started or starting: what an interrupt must stop. */
const inProcess = new Set<HarnessRegistry>();
const starting = new Set<Promise<unknown>>();
let refusing = false;

/**
 * For SIGINT/SIGTERM handlers, whose process exits next: stops every registry
 * this process started (waiting for those still starting), with their
 * /etc/hosts lines and dirs, and refuses any new one. The exit alone would
 * only kill their processes.
 */
export async function stopInProcessRegistries(): Promise<void> {
  refusing = true;
  await Promise.allSettled([...starting]);
  await Promise.all([...inProcess].map((r) => r.stop().catch(() => {})));
}

export class HarnessRegistry implements StartedRegistry {
  readonly name: string;
  readonly hostname: string;
  port: number;
  readonly address: string;
  readonly dir: string;
  readonly logFile: string;
  readonly admin: Credentials;
  scheme: 'http' | 'https' = 'http';
  caCertPath?: string;
  tokenServer?: TokenServer;
  readonly users: UserAdmin;

  private readonly runner: RegistryRunner;
  private readonly spec: RegistrySpec;
  private readonly log: Logger;
  private readonly configPath: string;
  private userList: User[];
  private memoryUsers?: MemoryUsers;
  private realm?: string;
  private readonly state: RegistryState;
  private handle: RunHandle | undefined;
  private stopping: Promise<void> | undefined;

  private constructor(runner: RegistryRunner, spec: RegistrySpec, dir: string, ownsDir: boolean, port: number) {
    this.runner = runner;
    this.spec = spec;
    this.log = spec.logger ?? noopLogger;
    this.name = spec.name;
    this.address = spec.address ?? '127.0.0.1';
    this.hostname = spec.hostname ?? defaultHostname(spec.name);
    this.port = port;
    this.dir = dir;
    this.logFile = join(dir, 'registry.log');
    this.configPath = join(dir, 'config.yml');
    this.admin = { username: ADMIN, password: generatedUser().password };
    this.userList =
      spec.auth.mode === 'none'
        ? []
        : [...spec.auth.users, { ...this.admin, access: [{ repository: '*', actions: ['*'] }] }];
    this.state = {
      name: spec.name,
      provider: runner.kind,
      processes: [],
      host: '',
      hostname: this.hostname,
      address: this.address,
      port,
      url: '',
      auth: spec.auth.mode,
      dir,
      ownsDir,
      createdAt: new Date().toISOString(),
      ...(spec.detached ? {} : { ownerPid: process.pid }),
    };
    this.users = {
      add: (u) => this.changeUsers((list) => [...list.filter((x) => x.username !== u.username), u]),
      rotate: (name, password) =>
        this.changeUsers((list) => {
          if (!list.some((x) => x.username === name))
            throw new CredprovError(`registry ${this.name} has no user '${name}'`);
          return list.map((x) => (x.username === name ? { ...x, password } : x));
        }),
      revoke: (name) => this.changeUsers((list) => list.filter((x) => x.username !== name)),
    };
  }

  get host(): string {
    return `${this.hostname}:${this.port}`;
  }
  get url(): string {
    return `${this.scheme}://${this.address}:${this.port}`;
  }
  get auth(): AuthInfo {
    return {
      mode: this.spec.auth.mode,
      ...(this.realm ? { realm: this.realm } : {}),
      users: this.userList.filter((u) => u.username !== ADMIN),
    };
  }

  static start(runner: RegistryRunner, spec: RegistrySpec): Promise<HarnessRegistry> {
    if (spec.detached) return HarnessRegistry.bringUp(runner, spec);
    if (refusing)
      return Promise.reject(
        new CredprovError(`not starting registry ${spec.name}: this process was interrupted and is cleaning up`),
      );
    const p = HarnessRegistry.bringUp(runner, spec);
    starting.add(p);
    void p.then(
      () => starting.delete(p),
      () => starting.delete(p),
    );
    return p;
  }

  private static async bringUp(runner: RegistryRunner, spec: RegistrySpec): Promise<HarnessRegistry> {
    if (!NAME_RE.test(spec.name))
      throw new CredprovError(`registry name '${spec.name}' must be lowercase letters, digits and dashes (≤ 32)`);
    const progress = spec.progress ?? silentProgress;
    const ownsDir = !spec.dir || !!spec.detached;
    const dir = spec.dir ?? (await mkdtemp(join(tmpdir(), `${IN_PROCESS_DIR_PREFIX}${spec.name}-`)));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const address = spec.address ?? '127.0.0.1';
    const port = spec.port ?? (await freePort(address, 5000));
    const r = new HarnessRegistry(runner, spec, dir, ownsDir, port);
    if (!spec.detached) inProcess.add(r);
    const end = progress.start(`registry ${spec.name}: ${spec.auth.mode}${spec.tls ? '+tls' : ''} on ${r.host}`);
    try {
      await r.setup();
      end(true);
      return r;
    } catch (err) {
      end(false);
      // Read before stop(): a registry that owns its dir removes it, log included.
      const logTail = await readFile(r.logFile, 'utf8').then(
        (t) => tail(t, 20),
        () => '',
      );
      await r.stop().catch((e) => r.log.warn(`cleanup after failed start: ${(e as Error).message}`));
      const keptLog = ownsDir ? undefined : r.logFile;
      if (/address already in use/.test(logTail)) {
        // A port the caller chose is its input (exit 2); one we picked lost a race (harness, exit 3).
        throw new CredprovError(`starting registry ${spec.name}: ${r.address}:${r.port} is already in use`, {
          detail: logTail,
          cause: err,
          exitCode: spec.port !== undefined ? 2 : 3,
          hint:
            spec.port !== undefined
              ? 'pick another --port, or leave it out for the first free one from 5000'
              : keptLog
                ? `log: ${keptLog}`
                : 'try again',
        });
      }
      const e = wrap(err, `starting registry ${spec.name}`);
      if (!logTail || e.detail) throw e;
      throw new CredprovError(e.reason, {
        detail: logTail,
        cause: err,
        exitCode: e.exitCode,
        ...(keptLog ? { hint: `log: ${keptLog}` } : {}),
      });
    }
  }

  private async setup(): Promise<void> {
    const spec = this.spec;
    this.state.host = this.host;
    await writeState(this.state);
    if (spec.hosts !== false && !isIP(this.hostname)) {
      const hosts = spec.hosts ?? new HostsFile();
      // A crashed test run's lines would otherwise stay until someone notices.
      await pruneRegistryHosts(hosts).catch((e) =>
        this.log.warn(`pruning stale /etc/hosts lines: ${(e as Error).message}`),
      );
      this.state.hostsOwner = hostsOwner(this.name, !!spec.detached);
      this.state.hostsFile = hosts.path;
      await writeState(this.state);
      await hosts.add({ address: this.address, hostnames: [this.hostname], owner: this.state.hostsOwner });
    }
    let tls: { certPath: string; keyPath: string } | undefined;
    if (spec.tls) {
      const ca = spec.ca ?? (await createCA(join(this.dir, 'tls')));
      tls = await issueServerCert(ca, join(this.dir, 'tls'), [this.hostname, this.address, 'localhost', '127.0.0.1']);
      this.scheme = 'https';
      this.caCertPath = ca.certPath;
      this.state.caFile = ca.certPath;
    }
    const auth = await this.setupAuth(spec.auth);
    const secret = randomBytes(16).toString('hex');
    // A port picked as free can be taken before distribution binds it (parallel
    // test workers): with no port asked for, move on to the next free one.
    for (let attempt = 1; ; attempt++) {
      await writeFile(
        this.configPath,
        registryConfig({
          listen: `${this.address}:${this.port}`,
          storageDir: join(this.dir, 'storage'),
          secret,
          ...(tls ? { tls } : {}),
          auth,
        }),
      );
      try {
        await this.spawnRegistry();
        break;
      } catch (err) {
        const log = await readFile(this.logFile, 'utf8').catch(() => '');
        if (spec.port !== undefined || attempt >= 5 || !/address already in use/.test(log)) throw err;
        if (this.handle) await this.runner.stop(this.handle);
        this.log.debug(`port ${this.port} was taken before the registry bound it; retrying`);
        await writeFile(this.logFile, '');
        this.port = await freePort(this.address, this.port + 1);
        this.state.port = this.port;
        this.state.host = this.host;
      }
    }
    this.state.url = this.url;
    if (this.realm) this.state.realm = this.realm;
    await writeState(this.state);
  }

  private async setupAuth(auth: AuthSpec): Promise<Parameters<typeof registryConfig>[0]['auth']> {
    if (auth.mode === 'none') return { mode: 'none' };
    if (auth.mode === 'htpasswd') {
      await this.writeHtpasswd();
      return { mode: 'htpasswd', realm: auth.realm, path: join(this.dir, 'htpasswd') };
    }
    const signing = await createSigningPair(join(this.dir, 'token'));
    const address = this.address;
    if (this.spec.detached) {
      const usersFile = join(this.dir, 'token', 'users.json');
      await this.writeUsersFile();
      const config: TokenServerConfig = {
        issuer: auth.issuer,
        service: auth.service,
        lifetimeSeconds: auth.lifetimeSeconds,
        signing,
        usersFile,
        address,
        port: await freePort(address),
      };
      const configFile = join(this.dir, 'token', 'token-server.json');
      await writeFile(configFile, JSON.stringify(config, null, 2), { mode: 0o600 });
      const logFd = openSync(join(this.dir, 'token-server.log'), 'a');
      // Plain spawn, not execa: a detached daemon with raw log fds needs none of execa's result handling.
      const child = spawn(process.execPath, [TOKEN_MAIN, configFile], {
        detached: true,
        stdio: ['ignore', logFd, logFd],
      });
      closeSync(logFd);
      child.on('error', () => {});
      child.unref();
      this.state.processes.push({ pid: child.pid!, match: configFile });
      await writeState(this.state);
      this.realm = `http://${address}:${config.port}/token`;
      await Ready.http('/token', { statuses: [401], timeoutMs: 10_000 }).wait({
        url: `http://${address}:${config.port}`,
      });
    } else {
      this.memoryUsers = new MemoryUsers(this.userList);
      this.tokenServer = await new TokenServer({
        issuer: auth.issuer,
        service: auth.service,
        lifetimeSeconds: auth.lifetimeSeconds,
        signing,
        users: this.memoryUsers,
        address,
        ...(auth.clock ? { clock: auth.clock } : {}),
        logger: this.log.child('token-server'),
      }).start();
      this.realm = this.tokenServer.realm;
    }
    return {
      mode: 'token',
      realm: this.realm,
      service: auth.service,
      issuer: auth.issuer,
      rootCertBundle: signing.certPath,
    };
  }

  private async writeHtpasswd(): Promise<void> {
    const cost = this.spec.auth.mode === 'htpasswd' ? this.spec.auth.bcryptCost : 5;
    await writeFile(join(this.dir, 'htpasswd'), htpasswdFile(this.userList, cost), { mode: 0o600 });
  }

  private async writeUsersFile(): Promise<void> {
    const file = join(this.dir, 'token', 'users.json');
    await mkdir(dirname(file), { recursive: true });
    // Write-then-rename so the token server never reads half a file.
    await writeFile(`${file}.tmp`, JSON.stringify({ users: this.userList }), { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }

  private async spawnRegistry(): Promise<void> {
    // With auth, an unauthenticated GET /v2/ must be challenged (401); without, answered (200).
    const ready: ReadyCheck =
      this.spec.ready ?? Ready.http('/v2/', { statuses: [this.spec.auth.mode === 'none' ? 200 : 401] });
    const ca = this.caCertPath ? await readFile(this.caCertPath, 'utf8') : undefined;
    await this.runner.run({
      configPath: this.configPath,
      logFile: this.logFile,
      dir: this.dir,
      detached: !!this.spec.detached,
      ready,
      target: { url: this.url, ...(ca ? { ca } : {}) },
      record: (h) => this.record(h),
    });
  }

  /** Keeps what a run must clean up in state.json, replacing what the previous handle held. */
  private async record(h: RunHandle): Promise<void> {
    const replaced = new Set([this.handle?.process?.match, h.process?.match].filter((m) => m !== undefined));
    this.state.processes = [
      ...this.state.processes.filter((p) => !replaced.has(p.match)),
      ...(h.process ? [h.process] : []),
    ];
    if (h.containerId) this.state.containerId = h.containerId;
    if (h.docker) this.state.docker = h.docker;
    this.handle = h;
    await writeState(this.state);
  }

  /**
   * htpasswd: rewrite the file and restart the registry on the same port and storage.
   * Debian's 2.8.2 does re-read a changed file (measured), but a registry that reads
   * while the file is rewritten answers 400, and other versions may only read it at
   * start: a restart (about 100 ms) is the deterministic way.
   */
  private async changeUsers(edit: (list: User[]) => User[]): Promise<void> {
    if (this.spec.auth.mode === 'none')
      throw new CredprovError(`registry ${this.name} has no auth; there are no users to change`);
    this.userList = edit(this.userList);
    if (this.spec.auth.mode === 'token') {
      if (this.memoryUsers) {
        for (const u of this.memoryUsers.list())
          if (!this.userList.some((x) => x.username === u.username)) this.memoryUsers.revoke(u.username);
        for (const u of this.userList) this.memoryUsers.add(u);
      } else {
        await this.writeUsersFile();
      }
      return;
    }
    await this.writeHtpasswd();
    if (this.handle) await this.runner.stop(this.handle);
    // The old log's "listening on" line would satisfy readiness at once: start a fresh log.
    await writeFile(this.logFile, '');
    await this.spawnRegistry();
  }

  ref(name: string, tag = 'latest'): string {
    return `${this.host}/${name}:${tag}`;
  }

  client(credentials?: Credentials): RegistryClient {
    return new RegistryClient({
      baseUrl: this.url,
      ...(credentials ? { credentials } : {}),
      ...(this.caCertPath ? { ca: readCA(this.caCertPath) } : {}),
      logger: this.log.child('client'),
    });
  }

  async push(image: BuiltImage, as: { name?: string; tag?: string } = {}): Promise<string> {
    const name = as.name ?? image.name;
    const tag = as.tag ?? image.tag;
    try {
      await this.client(this.spec.auth.mode === 'none' ? undefined : this.admin).push(image, name, tag);
    } catch (err) {
      throw wrap(err, `pushing ${name}:${tag} to ${this.host}`);
    }
    return this.ref(name, tag);
  }

  // containerd is sent to the loopback address itself, not the hostname: Go programs cache /etc/hosts
  // for ~5 s, so a long-running containerd may not see a registry line added a moment ago and would
  // ask the network's resolver instead. The serving certificate carries the address as an IP SAN.
  trustForContainerd(configPath: string): Promise<string> {
    return trustForContainerd(configPath, this.host, {
      ...(this.caCertPath ? { caCertPath: this.caCertPath } : {}),
      plainHttp: this.scheme === 'http',
      server: `${this.address}:${this.port}`,
    });
  }

  async serveAs(configPath: string, imageHost: string): Promise<string> {
    return trustForContainerd(configPath, imageHost, {
      ...(this.caCertPath ? { caCertPath: this.caCertPath } : {}),
      plainHttp: this.scheme === 'http',
      server: `${this.address}:${this.port}`,
    });
  }

  stop(): Promise<void> {
    inProcess.delete(this);
    this.stopping ??= (async () => {
      await this.tokenServer?.stop();
      await teardown(this.state, {
        logger: this.log,
        ...(this.runner.removeContainer ? { removeContainer: this.runner.removeContainer } : {}),
      });
      this.state.processes = [];
    })();
    return this.stopping;
  }
}

const caCache = new Map<string, string>();
function readCA(path: string): string {
  let pem = caCache.get(path);
  if (pem === undefined) {
    pem = readFileSync(path, 'utf8');
    caCache.set(path, pem);
  }
  return pem;
}
