// kubernetes_asyncio (PyPI) as a client of an exec plugin: probe/probe.py in
// a venv of its own under the cache (cluster/binaries/pypi-venv.ts:
// <cacheDir>/clients/kubernetes-asyncio/<36.1.0>/venv), run as one
// long-lived process per session and driven over the JSON-lines protocol
// (../line-session.ts), like the Python client's probe. The probe script is
// run from the source tree, so a changed probe needs no reinstall.
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePypiVenv, type PypiVenvInstall, type PypiVenvOptions } from '../../cluster/binaries/pypi-venv.ts';
import { PrerequisiteError } from '../../core/errors.ts';
import { defaultClientEnv, resolveProbeOptions, type ProbeOptions } from '../common.ts';
import { type FieldClientProbe } from '../field-client.ts';
import { startLineProcess } from '../line-session.ts';
import type { ClientAvailability, ClientTarget, ProbeSession, StartOptions } from '../probe.ts';

export const KUBERNETES_ASYNCIO = 'kubernetes-asyncio';
export const KUBERNETES_ASYNCIO_VERSION = '36.1.0';
export const KUBERNETES_ASYNCIO_PROBE = join(dirname(fileURLToPath(import.meta.url)), 'probe', 'probe.py');

export function kubernetesAsyncioDir(cacheDir: string, version = KUBERNETES_ASYNCIO_VERSION): string {
  return join(cacheDir, 'clients', KUBERNETES_ASYNCIO, version);
}

export function ensureKubernetesAsyncio(
  o: PypiVenvOptions & ProbeOptions & { version?: string } = {},
): Promise<PypiVenvInstall | undefined> {
  const r = resolveProbeOptions(o);
  const version = o.version ?? KUBERNETES_ASYNCIO_VERSION;
  return ensurePypiVenv(
    { package: 'kubernetes_asyncio', version, dir: kubernetesAsyncioDir(r.cacheDir, version), entry: 'python' },
    o,
  );
}

export function kubernetesAsyncioProbe(o: ProbeOptions = {}): FieldClientProbe {
  const r = resolveProbeOptions(o);
  let installed: Promise<PypiVenvInstall | undefined> | undefined;
  const venv = () => (installed ??= ensureKubernetesAsyncio({ ...o, cachedOnly: true }));
  const notInstalled = `kubernetes_asyncio ${KUBERNETES_ASYNCIO_VERSION} is not installed under ${kubernetesAsyncioDir(r.cacheDir)}: run \`node scripts/build-field.ts kubernetes-asyncio\` (needs python3-venv and PyPI)`;
  return {
    name: KUBERNETES_ASYNCIO,
    async available(): Promise<ClientAvailability> {
      return (await venv()) ? { ok: true, version: KUBERNETES_ASYNCIO_VERSION } : { ok: false, reason: notInstalled };
    },
    async start(target: ClientTarget, so: StartOptions): Promise<ProbeSession> {
      const v = await venv();
      if (!v) throw new PrerequisiteError(notInstalled);
      // -u: unbuffered answers; -I: isolated, so the user's PYTHONPATH and site dir cannot change the client.
      return startLineProcess({
        client: KUBERNETES_ASYNCIO,
        file: v.path,
        args: [
          '-u',
          '-I',
          KUBERNETES_ASYNCIO_PROBE,
          '--kubeconfig',
          target.kubeconfig,
          ...(target.context ? ['--context', target.context] : []),
          ...(so.terminal ? ['--terminal'] : []),
        ],
        env: so.env ?? defaultClientEnv(r.env),
        timeoutMs: so.timeoutMs,
        startTimeoutMs: Math.max(so.timeoutMs, 30_000),
        ...(so.signal ? { signal: so.signal } : {}),
        ...(so.redactor ? { redactor: so.redactor } : {}),
      });
    },
  };
}
