// kubectl as a client of an exec plugin: one process per request, as users
// run it (`kubectl get --raw <path>`), so it has no credential cache between
// requests and runs the plugin every time. It is the kubectl of the cluster's
// version from credprov's binary cache (or CREDPROV_KUBECTL), with kuberc off
// (KUBERC=off: a user's kuberc could set a credential plugin policy).
//
// The status comes from client-go's own debug line at -v=6:
//   I1124 … round_trippers.go:632] "Response" verb="GET" url="https://…/version" status="200 OK" milliseconds=5
// That line is client-go's round tripper reporting each response it got,
// printed for every request whatever kubectl then does with it; the
// alternatives are more fragile: kubectl's error texts map only some codes to
// words ("You must be logged in to the server (Unauthorized)") and a 200 shows
// only as a body. -v=6 prints the URL and status, never headers or the body
// (-v=7 starts printing request headers), so no credential reaches the log.
// When kubectl fails, its error is its last stderr line(s) that are not klog lines.
//
// With a terminal, kubectl runs under script(1), which gives it a pseudo-
// terminal as stdin, stdout and stderr (client-go decides interactiveMode
// from stdin), and copies everything to one stream, parsed the same way.
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { kubeCacheRoot, versionDir } from '../cluster/binaries/cache.ts';
import { formatMs } from '../core/duration.ts';
import { shellQuote } from '../core/shell-script.ts';
import { defaultClientEnv, resolveProbeOptions, type ProbeOptions } from './common.ts';
import type {
  ClientAvailability,
  ClientProbe,
  ClientTarget,
  ProbeResponse,
  ProbeSession,
  StartOptions,
} from './probe.ts';

/** Every response status client-go logged at -v=6, in order ("" when it got none: the request never left). */
export function parseKubectlStatuses(output: string): number[] {
  const out: number[] = [];
  for (const m of output.matchAll(/"Response" verb="[A-Z]+" url="[^"]*" status="(\d{3})?/g))
    if (m[1]) out.push(Number(m[1]));
  return out;
}

/**
 * kubectl's own error text: the stderr lines that are not klog lines (I/W/E/F
 * + date), from its last error line ("error: …", "Unable to connect to the
 * server: …") on; the plugin's own stderr, which client-go passes through,
 * comes before it.
 */
export function kubectlErrorText(output: string): string {
  const lines = output
    .replace(/\r/g, '')
    .split('\n')
    .filter((l) => l.trim() && !/^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ \S+:\d+\]/.test(l));
  let from = -1;
  lines.forEach((l, i) => {
    if (/^(error: |Unable to connect to the server: |Error from server)/.test(l)) from = i;
  });
  return lines.slice(Math.max(0, from)).join('\n').trim();
}

// kubectl process groups in flight in any session: none may outlive credprov.
const inFlight = new Set<number>();
let exitHookInstalled = false;

/** After kubectl exits, how long its outputs may stay open (held by something its plugin left) before we stop reading. */
const OUTPUT_GRACE_MS = 250;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export function kubectlPath(o: ProbeOptions = {}): string {
  const r = resolveProbeOptions(o);
  return r.env.CREDPROV_KUBECTL || join(versionDir(kubeCacheRoot(r.cacheDir), r.kubeVersion), 'kubectl');
}

export function kubectlProbe(o: ProbeOptions = {}): ClientProbe {
  const r = resolveProbeOptions(o);
  const bin = kubectlPath(o);
  let availability: Promise<ClientAvailability> | undefined;
  return {
    name: 'kubectl',
    available() {
      availability ??= (async (): Promise<ClientAvailability> => {
        try {
          await access(bin, constants.X_OK);
        } catch {
          return {
            ok: false,
            reason: `no kubectl ${r.kubeVersion} at ${bin}: run \`scripts/credprov binaries ensure --kube-version ${r.kubeVersion}\` (scripts/setup.sh --cluster builds the default one), or set CREDPROV_KUBECTL`,
          };
        }
        const v = await execa(bin, ['version', '--client', '-o', 'json'], {
          reject: false,
          timeout: 30_000,
          env: { KUBERC: 'off' },
        });
        try {
          return {
            ok: true,
            version: (JSON.parse(String(v.stdout)) as { clientVersion: { gitVersion: string } }).clientVersion
              .gitVersion,
          };
        } catch {
          return {
            ok: false,
            reason: `${bin} does not run: ${
              String(v.stderr || v.stdout)
                .trim()
                .split('\n')[0] ?? `exit ${v.exitCode}`
            }`,
          };
        }
      })();
      return availability;
    },
    async start(target: ClientTarget, so: StartOptions): Promise<ProbeSession> {
      // kubectl's discovery cache goes here, not into the user's ~/.kube/cache.
      const dir = await mkdtemp(join(tmpdir(), 'credprov-kubectl-'));
      const env = { ...(so.env ?? defaultClientEnv(r.env)), KUBERC: 'off', KUBECACHEDIR: join(dir, 'cache') };
      const redact = (s: string) => (so.redactor ? so.redactor.text(s) : s);
      let log = '';
      let seq = 0;
      let closed = false;
      const running = new Set<number>();
      if (!exitHookInstalled) {
        process.once('exit', () => {
          for (const pid of inFlight) killGroup(pid);
        });
        exitHookInstalled = true;
      }
      const close = async () => {
        if (closed) return;
        closed = true;
        for (const pid of running) killGroup(pid);
        await rm(dir, { recursive: true, force: true });
      };
      so.signal?.addEventListener('abort', () => void close(), { once: true });

      const request = (path: string): Promise<ProbeResponse> => {
        const n = ++seq;
        const t0 = performance.now();
        const ms = () => Math.round(performance.now() - t0);
        if (closed) return Promise.resolve({ seq: n, error: 'the kubectl session is closed', ms: 0 });
        const args = [
          '--kubeconfig',
          target.kubeconfig,
          ...(target.context ? ['--context', target.context] : []),
          'get',
          '--raw',
          path,
          '-v=6',
        ];
        const [file, argv] = so.terminal
          ? ['script', ['-q', '-e', '-c', [bin, ...args].map(shellQuote).join(' '), '/dev/null']]
          : [bin, args];
        return new Promise((resolve) => {
          // Its own process group: a timeout kills kubectl and the plugin it is waiting for.
          const child = spawn(file, argv, { env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
          let out = '';
          let err = '';
          child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
          child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
          child.stdin!.on('error', () => {});
          // No input: kubectl's stdin (or the terminal script(1) makes) stays open and silent, as a user's would.
          let timedOut = false;
          const timer = setTimeout(() => {
            timedOut = true;
            if (child.pid !== undefined) killGroup(child.pid);
          }, so.timeoutMs);
          if (child.pid !== undefined) {
            running.add(child.pid);
            inFlight.add(child.pid);
          }
          child.once('error', (e: NodeJS.ErrnoException) => {
            clearTimeout(timer);
            resolve({ seq: n, error: `cannot run ${file}: ${e.code ?? e.message}`, ms: ms() });
          });
          // 'exit', then a short wait for the outputs: a process the plugin left behind (a daemon in a session of
          // its own) can hold kubectl's stderr, which the plugin shares, for ever; 'close' would wait for it.
          child.once('exit', (code) => {
            let done = false;
            const finish = () => {
              if (done) return;
              done = true;
              clearTimeout(timer);
              if (child.pid !== undefined) {
                running.delete(child.pid);
                inFlight.delete(child.pid);
                // A plugin kubectl left behind in its group goes with it.
                killGroup(child.pid);
              }
              child.stdin!.destroy();
              child.stdout!.destroy();
              child.stderr!.destroy();
              // script(1) copies the terminal (kubectl's stdout and stderr alike) to its stdout.
              const diagnostics = so.terminal ? out : err;
              log += redact(`$ kubectl ${args.join(' ')}\n${diagnostics.replace(/\r/g, '')}`);
              if (!log.endsWith('\n')) log += '\n';
              const statuses = parseKubectlStatuses(diagnostics);
              const status = statuses[statuses.length - 1];
              const failure = timedOut
                ? `no answer within ${formatMs(so.timeoutMs)}: kubectl is stuck (a plugin that never answers blocks it); kubectl and its plugin were killed`
                : code !== 0
                  ? redact(kubectlErrorText(diagnostics) || `kubectl exited with code ${code}`)
                  : undefined;
              resolve({
                seq: n,
                ...(status !== undefined ? { status } : {}),
                ...(failure ? { error: failure } : {}),
                ms: ms(),
                ...(statuses.length > 1 ? { statuses } : {}),
              });
            };
            const grace = setTimeout(finish, OUTPUT_GRACE_MS);
            child.once('close', () => {
              clearTimeout(grace);
              finish();
            });
          });
        });
      };
      return { client: 'kubectl', request, log: () => log, close };
    },
  };
}
