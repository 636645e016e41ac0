// @kubernetes/client-node as a client of an exec plugin, in credprov's own
// process. One KubeConfig per session (loadFromFile): its ExecAuth caches the
// credential in that object, per user name, until expirationTimestamp. Each
// request goes the way the library's generated API calls go:
// KubeConfig.applySecurityAuthentication (which runs the plugin, or takes the
// cached credential, and sets the Authorization header and client
// certificate) on a RequestContext, sent by its IsomorphicFetchHttpLibrary
// (undici), so a raw path needs no generated API class.
//
// Two things a probe must own that the library does not offer, both done by
// wrapping ExecAuth's spawn function (its `execFn`), which still calls
// node:child_process spawn with the library's own arguments:
//   - the environment: an in-process client can only hand the plugin
//     credprov's process.env, so the wrapper gives it the session's env
//     instead (plus exec.env on top, as the library does);
//   - the deadline: the library has no timeout, so a hung plugin would hang
//     the request forever; the wrapper knows the plugin processes and kills
//     them when a request runs past timeoutMs.
// The library never gives a plugin a terminal (stdin is a pipe) and sends no
// KUBERNETES_EXEC_INFO, whatever interactiveMode says: `terminal` is reported
// in the session's notes, not pretended.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { KubeConfig } from '@kubernetes/client-node';
import { formatMs } from '../core/duration.ts';
import { defaultClientEnv, resolveProbeOptions, type ProbeOptions } from './common.ts';
import type {
  ClientAvailability,
  ClientProbe,
  ClientTarget,
  ProbeResponse,
  ProbeSession,
  StartOptions,
} from './probe.ts';

export const CLIENT_NODE_NO_TERMINAL =
  '@kubernetes/client-node never gives the plugin a terminal: exec_auth.js spawns it with stdin a pipe, and sends no KUBERNETES_EXEC_INFO, whatever interactiveMode says';

type SpawnFn = (command: string, args: readonly string[], opts: SpawnOptions) => ChildProcess;

/** The library's ExecAuth inside a KubeConfig (a private field in its typings). */
function execAuthOf(kc: KubeConfig): { execFn: SpawnFn } {
  const auths = (kc as unknown as { authenticators?: unknown[] }).authenticators ?? [];
  const exec = auths.find(
    (a): a is { execFn: SpawnFn } => typeof a === 'object' && a !== null && 'execFn' in a && 'tokenCache' in a,
  );
  if (!exec)
    throw new Error('@kubernetes/client-node has no ExecAuth authenticator with an execFn (has its layout changed?)');
  return exec;
}

export async function clientNodeVersion(): Promise<string> {
  const pkg = createRequire(import.meta.url).resolve('@kubernetes/client-node/package.json');
  return (JSON.parse(await readFile(pkg, 'utf8')) as { version: string }).version;
}

export function clientNodeProbe(o: ProbeOptions = {}): ClientProbe {
  const r = resolveProbeOptions(o);
  return {
    name: 'client-node',
    async available(): Promise<ClientAvailability> {
      try {
        return { ok: true, version: await clientNodeVersion() };
      } catch (e) {
        return {
          ok: false,
          reason: `@kubernetes/client-node is not installed (${(e as Error).message.split('\n')[0]}): run npm install (scripts/setup.sh)`,
        };
      }
    },
    async start(target: ClientTarget, so: StartOptions): Promise<ProbeSession> {
      // Loaded on first use: the library takes about a second to import, which `clients ls` need not pay.
      const { HttpMethod, IsomorphicFetchHttpLibrary, KubeConfig, RequestContext } =
        await import('@kubernetes/client-node');
      const kc = new KubeConfig();
      kc.loadFromFile(target.kubeconfig);
      if (target.context) kc.setCurrentContext(target.context);
      const cluster = kc.getCurrentCluster();
      if (!cluster)
        throw new Error(
          `${target.kubeconfig}: the ${target.context ? `context "${target.context}"` : 'current context'} names no cluster`,
        );
      const sessionEnv = so.env ?? defaultClientEnv(r.env);
      const redact = (s: string) => (so.redactor ? so.redactor.text(s) : s);
      const plugins = new Set<ChildProcess>();
      let log = '';

      const auth = execAuthOf(kc);
      auth.execFn = (command, args, opts) => {
        // The library sets env only when exec.env is given ({...process.env, ...exec.env}); otherwise the plugin inherits ours.
        const execEnv = Object.fromEntries(
          (kc.getCurrentUser()?.exec?.env ?? []).map((e: { name: string; value: string }) => [e.name, e.value]),
        );
        const child = spawn(command, args, { ...opts, env: { ...sessionEnv, ...execEnv } });
        plugins.add(child);
        child.stderr?.on('data', (d: Buffer) => (log += redact(d.toString('utf8'))));
        child.once('close', () => plugins.delete(child));
        return child;
      };

      const http = new IsomorphicFetchHttpLibrary();
      let seq = 0;
      let closed = false;
      const killPlugins = () => {
        for (const p of plugins) p.kill('SIGKILL');
      };
      const close = async () => {
        closed = true;
        killPlugins();
      };
      so.signal?.addEventListener('abort', () => void close(), { once: true });

      const request = async (path: string): Promise<ProbeResponse> => {
        const n = ++seq;
        const t0 = performance.now();
        const ms = () => Math.round(performance.now() - t0);
        if (closed) return { seq: n, error: 'the client-node session is closed', ms: 0 };
        const abort = new AbortController();
        const send = async (): Promise<ProbeResponse> => {
          const ctx = new RequestContext(`${cluster.server.replace(/\/+$/, '')}${path}`, HttpMethod.GET);
          ctx.setHeaderParam('Accept', 'application/json');
          ctx.setSignal(abort.signal);
          await kc.applySecurityAuthentication(ctx);
          const res = await http.send(ctx).toPromise();
          await res.body.text().catch(() => '');
          return { seq: n, status: res.httpStatusCode, ms: ms() };
        };
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<ProbeResponse>((resolve) => {
          timer = setTimeout(() => {
            abort.abort();
            killPlugins();
            resolve({
              seq: n,
              error: `no answer within ${formatMs(so.timeoutMs)}: client-node was waiting for its plugin (it has no timeout); the plugin was killed`,
              ms: ms(),
            });
          }, so.timeoutMs);
        });
        try {
          return await Promise.race([
            send().catch((e: unknown): ProbeResponse => {
              const text = redact(describeError(e));
              log += `request ${n}: ${text}\n`;
              return { seq: n, error: text, ms: ms() };
            }),
            deadline,
          ]);
        } finally {
          clearTimeout(timer);
        }
      };
      return {
        client: 'client-node',
        request,
        log: () => log,
        close,
        ...(so.terminal ? { notes: [CLIENT_NODE_NO_TERMINAL] } : {}),
      };
    },
  };
}

/**
 * The library's error as a user of it sees it: its class when that says more
 * (TypeError), the message, and the cause's message (fetch failed: why).
 * Duck-typed: errors from undici may come from another realm (jest's VM).
 */
function describeError(e: unknown): string {
  const asError = (x: unknown): { name?: string; message: string; cause?: unknown } | undefined =>
    x && typeof x === 'object' && typeof (x as { message?: unknown }).message === 'string'
      ? (x as { name?: string; message: string; cause?: unknown })
      : undefined;
  const err = asError(e);
  if (!err) return String(e);
  const msg = err.message.trim() || '(empty message)';
  const cause = asError(err.cause)?.message;
  return `${err.name && err.name !== 'Error' ? `${err.name}: ${msg}` : msg}${cause ? ` (${cause})` : ''}`;
}
