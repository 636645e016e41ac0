// kube-rs (the `kube` crate) as a client of an exec plugin: probe/src/main.rs,
// built with cargo against the crates Cargo.lock pins (kube 5.0.0 from
// crates.io), run as one long-lived process per session and driven over the
// JSON-lines protocol (../line-session.ts), like the client-go probe.
//
// Build: `cargo build --locked --offline` (the dev profile Cargo.toml tunes
// for a cheap cold build) after `cargo fetch --locked` (crates.io through
// cargo's own client, into CARGO_HOME, default ~/.cargo), with a target dir of
// its own under the cache, so a rebuild after a probe change recompiles only
// the probe. It links Debian's OpenSSL (libssl-dev, pkg-config). Cached per kube version and probe
// source under <cacheDir>/clients/kube-rs-probe/<5.0.0>-<sha>/ (../probe-build.ts).
import { execa } from 'execa';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeBinaries } from '../../cluster/binaries/cache.ts';
import { PrerequisiteError, tail } from '../../core/errors.ts';
import { silentProgress, step, type Progress } from '../../core/progress.ts';
import { defaultClientEnv, resolveProbeOptions, type ProbeOptions } from '../common.ts';
import { startLineProcess } from '../line-session.ts';
import { ensureProbeEntry, probeKey, type ProbeEntry } from '../probe-build.ts';
import type { ClientAvailability, ClientTarget, ProbeSession, StartOptions } from '../probe.ts';
import { type FieldClientProbe } from '../field-client.ts';

export const KUBE_RS = 'kube-rs';
export const KUBE_RS_PROBE = 'kube-rs-probe';
/** The kube crate version Cargo.toml pins (kube = "=5.0.0"). */
export const KUBE_RS_VERSION = '5.0.0';
export const KUBE_RS_PROBE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'probe');
const SOURCES = ['Cargo.toml', 'Cargo.lock', 'src/main.rs'];

export function kubeRsProbeRoot(cacheDir: string): string {
  return join(cacheDir, 'clients', KUBE_RS_PROBE);
}

export interface EnsureKubeRsProbeOptions extends ProbeOptions {
  progress?: Progress;
  signal?: AbortSignal;
  cachedOnly?: boolean;
  /** CARGO_HOME for the crate downloads (default cargo's own, ~/.cargo). */
  cargoHome?: string;
}

export async function ensureKubeRsProbe(o: EnsureKubeRsProbeOptions = {}): Promise<ProbeEntry | undefined> {
  const r = resolveProbeOptions(o);
  const root = kubeRsProbeRoot(r.cacheDir);
  const progress = o.progress ?? silentProgress;
  return ensureProbeEntry({
    root,
    key: await probeKey(
      KUBE_RS_VERSION,
      SOURCES.map((f) => join(KUBE_RS_PROBE_DIR, f)),
    ),
    files: [KUBE_RS_PROBE],
    what: 'the kube-rs probe',
    progress,
    ...(o.cachedOnly ? { cachedOnly: true } : {}),
    async fill(staging, startedAt) {
      const src = join(staging, 'src');
      await mkdir(join(src, 'src'), { recursive: true });
      for (const f of SOURCES) await copyFile(join(KUBE_RS_PROBE_DIR, f), join(src, f));
      // The target dir outlives the entry: a changed probe recompiles only itself.
      const env = {
        CARGO_TARGET_DIR: join(root, 'target'),
        CARGO_TERM_COLOR: 'never',
        ...(o.cargoHome ? { CARGO_HOME: o.cargoHome } : {}),
      };
      const cargo = async (args: string[], what: string) => {
        const res = await execa('cargo', args, {
          cwd: src,
          env,
          all: true,
          reject: false,
          ...(o.signal ? { cancelSignal: o.signal } : {}),
        });
        if (res.exitCode !== 0)
          throw new PrerequisiteError(`${what} failed (${res.exitCode ?? res.signal ?? res.code})`, {
            detail: tail(String(res.all ?? res.message), 20),
            hint: 'it needs cargo (rustup), crates.io, and OpenSSL headers (apt-get install libssl-dev pkg-config); nothing was cached',
          });
      };
      progress.note(`building the kube-rs probe against kube ${KUBE_RS_VERSION} from crates.io (first time only)`);
      await step(progress, `cargo fetch (kube ${KUBE_RS_VERSION})`, () => cargo(['fetch', '--locked'], 'cargo fetch'));
      await step(progress, `cargo build ${KUBE_RS_PROBE}`, () =>
        cargo(['build', '--locked', '--offline'], 'cargo build'),
      );
      await copyFile(join(env.CARGO_TARGET_DIR, 'debug', KUBE_RS_PROBE), join(staging, KUBE_RS_PROBE));
      const { stdout } = await execa('cargo', ['--version'], { reject: false });
      return {
        version: `${KUBE_RS_VERSION}`,
        source: 'build',
        origin: `crates.io kube ${KUBE_RS_VERSION} (src/clients/kube-rs/probe, Cargo.lock), ${String(stdout).trim()}`,
        binaries: await describeBinaries(staging, [KUBE_RS_PROBE]),
        createdAt: new Date().toISOString(),
        durationMs: Date.now() - startedAt,
      };
    },
  });
}

export function kubeRsProbe(o: ProbeOptions = {}): FieldClientProbe {
  const r = resolveProbeOptions(o);
  let built: Promise<ProbeEntry | undefined> | undefined;
  const entry = () => (built ??= ensureKubeRsProbe({ ...o, cachedOnly: true }));
  const notBuilt = `the kube-rs probe (kube ${KUBE_RS_VERSION}) is not built: run \`node scripts/build-field.ts kube-rs\` (needs cargo and crates.io)`;
  return {
    name: KUBE_RS,
    async available(): Promise<ClientAvailability> {
      return (await entry()) ? { ok: true, version: KUBE_RS_VERSION } : { ok: false, reason: notBuilt };
    },
    async start(target: ClientTarget, so: StartOptions): Promise<ProbeSession> {
      const e = await entry();
      if (!e) throw new PrerequisiteError(notBuilt);
      return startLineProcess({
        client: KUBE_RS,
        file: join(e.dir, KUBE_RS_PROBE),
        args: [
          '--kubeconfig',
          target.kubeconfig,
          ...(target.context ? ['--context', target.context] : []),
          ...(so.terminal ? ['--terminal'] : []),
        ],
        env: so.env ?? defaultClientEnv(r.env),
        timeoutMs: so.timeoutMs,
        // Building the client runs the plugin three times (kube-rs-rules.ts runsAtStart): the first request may take
        // three runs' worth of the plugin's limit.
        firstRequestSlackMs: 2 * so.timeoutMs,
        ...(so.signal ? { signal: so.signal } : {}),
        ...(so.redactor ? { redactor: so.redactor } : {}),
      });
    },
  };
}
