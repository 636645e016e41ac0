// client-go as a client of an exec plugin: client-go-probe/main.go, built
// from the Go module proxy against k8s.io/client-go at the version matching
// the cluster (v1.37.1 → v0.37.1), and run as one long-lived process per
// session, so its exec authenticator's credential cache lives across
// requests as in a controller. Driven over the JSON-lines protocol
// (line-session.ts).
//
// Build: a module of its own (go.mod requiring only client-go at that
// version; `go mod tidy` resolves the rest through the proxy and checks it
// against the checksum database), `go build -trimpath`, CGO off. Cached per
// client-go version and probe source under
// <cacheDir>/clients/client-go-probe/<v0.37.1>-<sha of main.go>/ with a
// manifest, committed by rename of a complete staging dir under a lock
// (binaries/cache.ts buildEntry), like the vendor plugins (plugin/vendors/build.ts).
import { createHash } from 'node:crypto';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildEntry,
  describeBinaries,
  removeStaleStaging,
  usableEntry,
  withLock,
  type KubeManifest,
} from '../cluster/binaries/cache.ts';
import { systemGo, type GoTool } from '../cluster/binaries/go.ts';
import { PrerequisiteError } from '../core/errors.ts';
import { silentProgress, step, type Progress } from '../core/progress.ts';
import { clientGoVersionFor, defaultClientEnv, resolveProbeOptions, type ProbeOptions } from './common.ts';
import { startLineProcess } from './line-session.ts';
import type { ClientAvailability, ClientProbe, ClientTarget, ProbeSession, StartOptions } from './probe.ts';

export const CLIENT_GO_PROBE = 'client-go-probe';
export const CLIENT_GO_PROBE_SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'client-go-probe', 'main.go');

export function clientGoProbeRoot(cacheDir: string): string {
  return join(cacheDir, 'clients', CLIENT_GO_PROBE);
}

/** The cache entry's name: the client-go version and the probe source it was built from (a changed probe is rebuilt). */
export async function clientGoProbeKey(clientGoVersion: string): Promise<string> {
  const src = await readFile(CLIENT_GO_PROBE_SOURCE);
  return `${clientGoVersion}-${createHash('sha256').update(src).digest('hex').slice(0, 12)}`;
}

export interface ClientGoProbeBinary {
  path: string;
  clientGoVersion: string;
  manifest: KubeManifest;
  fromCache: boolean;
}

export interface EnsureClientGoProbeOptions extends ProbeOptions {
  progress?: Progress;
  go?: GoTool;
  signal?: AbortSignal;
  /** Never build: undefined when it is not cached. */
  cachedOnly?: boolean;
}

/** The probe built against client-go for `kubeVersion`: from the cache, or built once from the Go module proxy. */
export async function ensureClientGoProbe(
  o: EnsureClientGoProbeOptions = {},
): Promise<ClientGoProbeBinary | undefined> {
  const r = resolveProbeOptions(o);
  const clientGoVersion = clientGoVersionFor(r.kubeVersion);
  const root = clientGoProbeRoot(r.cacheDir);
  const key = await clientGoProbeKey(clientGoVersion);
  const hit = await cachedProbe(root, key, clientGoVersion);
  if (hit || o.cachedOnly) return hit;
  await removeStaleStaging(root);
  const progress = o.progress ?? silentProgress;
  const go = o.go ?? systemGo();
  return withLock(
    join(root, `${key}.lock`),
    async () => {
      const again = await cachedProbe(root, key, clientGoVersion);
      if (again) return again;
      await buildEntry(root, key, join(root, key), async (staging, startedAt) => {
        const logFile = join(staging, 'build.log');
        const env = { CGO_ENABLED: '0' };
        await copyFile(CLIENT_GO_PROBE_SOURCE, join(staging, 'main.go'));
        await writeFile(
          join(staging, 'go.mod'),
          `module credprov.test/client-go-probe\n\ngo 1.24\n\nrequire k8s.io/client-go ${clientGoVersion}\n`,
        );
        progress.note(
          `building the client-go probe against k8s.io/client-go ${clientGoVersion} from the Go module proxy (first time only)`,
        );
        const run = (args: string[]) =>
          go.run(args, { cwd: staging, env, logFile, ...(o.signal ? { signal: o.signal } : {}) });
        try {
          await step(progress, `go mod tidy (k8s.io/client-go ${clientGoVersion})`, () => run(['mod', 'tidy']));
          await step(progress, `go build ${CLIENT_GO_PROBE}`, () =>
            run(['build', '-trimpath', '-o', CLIENT_GO_PROBE, '.']),
          );
        } catch (err) {
          throw new PrerequisiteError(
            `could not build the client-go probe against k8s.io/client-go ${clientGoVersion}`,
            {
              cause: err,
              detail: [(err as Error).message, (err as { detail?: string }).detail ?? ''].filter(Boolean).join('\n'),
              hint: 'it needs Go and the Go module proxy (GOPROXY); nothing was cached',
            },
          );
        }
        const sum = /^k8s\.io\/client-go \S+ (h1:\S+)$/m.exec(await readFile(join(staging, 'go.sum'), 'utf8'))?.[1];
        return {
          version: key,
          source: 'build',
          origin: `k8s.io/client-go@${clientGoVersion}${sum ? ` ${sum}` : ''} (src/clients/client-go-probe/main.go)`,
          binaries: await describeBinaries(staging, [CLIENT_GO_PROBE]),
          createdAt: new Date().toISOString(),
          durationMs: Date.now() - startedAt,
          goVersion: await go.version(),
        };
      });
      return (await cachedProbe(root, key, clientGoVersion, false))!;
    },
    {
      onWait: (pid) => progress.note(`waiting for another credprov (pid ${pid}) that is building the client-go probe`),
    },
  );
}

async function cachedProbe(
  root: string,
  key: string,
  clientGoVersion: string,
  fromCache = true,
): Promise<ClientGoProbeBinary | undefined> {
  const dir = join(root, key);
  const manifest = await usableEntry(dir, [CLIENT_GO_PROBE]);
  return manifest ? { path: join(dir, CLIENT_GO_PROBE), clientGoVersion, manifest, fromCache } : undefined;
}

/** Probes built so far (any version), for `credprov doctor`-style listings. */
export function clientGoProbe(o: ProbeOptions = {}): ClientProbe {
  const r = resolveProbeOptions(o);
  const clientGoVersion = clientGoVersionFor(r.kubeVersion);
  let built: Promise<ClientGoProbeBinary | undefined> | undefined;
  const binary = () => (built ??= ensureClientGoProbe({ ...o, cachedOnly: true }));
  return {
    name: 'client-go',
    async available(): Promise<ClientAvailability> {
      const b = await binary();
      if (b) return { ok: true, version: clientGoVersion };
      return {
        ok: false,
        reason: `the client-go probe for k8s.io/client-go ${clientGoVersion} is not built: run \`scripts/credprov clients ensure --kube-version ${r.kubeVersion}\` (scripts/test.sh builds it; needs Go and the Go module proxy)`,
      };
    },
    async start(target: ClientTarget, so: StartOptions): Promise<ProbeSession> {
      const b = await binary();
      if (!b)
        throw new PrerequisiteError(`the client-go probe for k8s.io/client-go ${clientGoVersion} is not built`, {
          hint: `scripts/credprov clients ensure --kube-version ${r.kubeVersion}`,
        });
      return startLineProcess({
        client: 'client-go',
        file: b.path,
        args: [
          '--kubeconfig',
          target.kubeconfig,
          ...(target.context ? ['--context', target.context] : []),
          ...(so.terminal ? ['--terminal'] : []),
        ],
        env: so.env ?? defaultClientEnv(r.env),
        timeoutMs: so.timeoutMs,
        ...(so.signal ? { signal: so.signal } : {}),
        ...(so.redactor ? { redactor: so.redactor } : {}),
      });
    },
  };
}
