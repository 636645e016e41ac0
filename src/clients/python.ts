// The official Kubernetes Python client (`kubernetes` on PyPI) as a client of
// an exec plugin: a long-lived python-probe/probe.py in the venv that
// scripts/setup.sh --tests makes under $CREDPROV_CACHE_DIR, driven over the JSON-lines
// protocol (line-session.ts). The client runs the plugin when it loads the
// kubeconfig (the probe's first request) and again only when the token's
// expirationTimestamp is within 5 minutes; a plugin answer it refuses is
// logged, not raised, and the request goes out with no credential, so the
// probe reports the server's status and the logged refusal as `error`.
import { constants, readFileSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { defaultClientEnv, resolveProbeOptions, type ProbeOptions } from './common.ts';
import { startLineProcess } from './line-session.ts';
import type { ClientAvailability, ClientProbe, ClientTarget, ProbeSession, StartOptions } from './probe.ts';

const PROBE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'python-probe');
export const PYTHON_PROBE_SCRIPT = join(PROBE_DIR, 'probe.py');
export const PYTHON_REQUIREMENTS = join(PROBE_DIR, 'requirements.txt');

/** The `kubernetes` version credprov pins (requirements.txt, which setup.sh installs). */
export function pinnedPythonClientVersion(): string {
  const m = /^kubernetes==(\S+)$/m.exec(readFileSync(PYTHON_REQUIREMENTS, 'utf8'));
  if (!m) throw new Error(`${PYTHON_REQUIREMENTS} pins no kubernetes version`);
  return m[1]!;
}

/** The venv setup.sh makes: $CREDPROV_CACHE_DIR/clients/python-kubernetes-<version>. */
export function pythonClientVenv(cacheDir: string, version = pinnedPythonClientVersion()): string {
  return join(cacheDir, 'clients', `python-kubernetes-${version}`);
}

export function pythonProbe(o: ProbeOptions = {}): ClientProbe {
  const r = resolveProbeOptions(o);
  const version = pinnedPythonClientVersion();
  const venv = pythonClientVenv(r.cacheDir, version);
  const python = join(venv, 'bin', 'python');
  let availability: Promise<ClientAvailability> | undefined;
  return {
    name: 'python',
    available() {
      availability ??= (async (): Promise<ClientAvailability> => {
        const install = `run scripts/setup.sh --tests (it installs kubernetes==${version} from PyPI into ${venv}; needs python3-venv)`;
        try {
          await access(python, constants.X_OK);
        } catch {
          return { ok: false, reason: `no Python client venv at ${venv}: ${install}` };
        }
        const v = await execa(python, ['-c', 'import kubernetes; print(kubernetes.__version__)'], {
          reject: false,
          timeout: 60_000,
        });
        const got = String(v.stdout).trim();
        if (v.exitCode !== 0)
          return {
            ok: false,
            reason: `${python} cannot import kubernetes (${String(v.stderr).trim().split('\n').pop()}): ${install}`,
          };
        if (got !== version)
          return { ok: false, reason: `${venv} holds kubernetes ${got}, credprov pins ${version}: ${install}` };
        return { ok: true, version: got };
      })();
      return availability;
    },
    async start(target: ClientTarget, so: StartOptions): Promise<ProbeSession> {
      const args = [
        PYTHON_PROBE_SCRIPT,
        '--kubeconfig',
        target.kubeconfig,
        ...(target.context ? ['--context', target.context] : []),
        ...(so.terminal ? ['--terminal'] : []),
      ];
      // -u: unbuffered, so each answer line leaves at once; -I: isolated, so the user's PYTHONPATH and site dir cannot change the client.
      return startLineProcess({
        client: 'python',
        file: python,
        args: ['-u', '-I', ...args],
        env: so.env ?? defaultClientEnv(r.env),
        timeoutMs: so.timeoutMs,
        startTimeoutMs: Math.max(so.timeoutMs, 30_000),
        ...(so.signal ? { signal: so.signal } : {}),
        ...(so.redactor ? { redactor: so.redactor } : {}),
      });
    },
  };
}
