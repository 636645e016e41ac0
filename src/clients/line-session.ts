// A long-lived client probe process (client-go, python) driven over a
// JSON-lines protocol: the probe prints {"ready":…} (or {"fatal":…}) once it
// has started, then reads one {"path":…} line per request and answers one
// {"status"?, "error"?} line each. This module owns the process: its own
// process group (so the plugins the client starts die with it), a deadline
// per request (a client stuck on a hung plugin is killed, since client-go
// itself has no timeout), stderr kept for log(), and close() that leaves
// nothing behind, also when credprov exits or is interrupted.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Redactor } from '../core/redact.ts';
import { formatMs } from '../core/duration.ts';
import type { ExecClientName, ProbeResponse, ProbeSession } from './probe.ts';

/** stderr kept for log(): the last this many characters. */
const MAX_LOG_CHARS = 1024 * 1024;
/** How long close() lets the probe end by itself (stdin closed) before killing its group. */
const CLOSE_GRACE_MS = 1000;

export interface LineProcessSpec {
  client: ExecClientName;
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs: number;
  /** How long the probe may take to print its ready line (python imports its client first). */
  startTimeoutMs?: number;
  /**
   * Added to the first request's limit: a client that loads its HTTP stack then (fabric8's JVM takes 10-14 s on a
   * loaded machine for its first request) would otherwise read as a hung plugin under a plugin timeout of seconds.
   */
  firstRequestSlackMs?: number;
  signal?: AbortSignal;
  redactor?: Redactor;
  notes?: string[];
}

interface Answer {
  ready?: string;
  fatal?: string;
  status?: number;
  error?: string;
  [k: string]: unknown;
}

// Probe processes alive, for our own exit: none may outlive credprov.
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Starts the probe and waits for its ready line; throws with the probe's own words when it cannot start. */
export async function startLineProcess(spec: LineProcessSpec): Promise<ProbeSession & { readonly ready: Answer }> {
  if (!exitHookInstalled) {
    process.once('exit', () => {
      for (const c of live) killGroup(c);
    });
    exitHookInstalled = true;
  }
  const child = spawn(spec.file, spec.args, {
    env: spec.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(spec.cwd ? { cwd: spec.cwd } : {}),
  });
  live.add(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => {
    stderr = (stderr + d).slice(-MAX_LOG_CHARS);
  });
  child.stdin!.on('error', () => {});
  child.on('error', () => {});

  const lines: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let exited: string | undefined;
  let buffer = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    buffer += d;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      if (!line.trim()) continue;
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        w(line);
      } else lines.push(line);
    }
  });
  // 'exit', not 'close': a process the plugin left behind can hold the stderr it shares with the probe for ever.
  const whenExited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = signal ? `killed by ${signal}` : `exited with code ${code}`;
      live.delete(child);
      const w = waiting;
      waiting = undefined;
      w?.(undefined);
      resolve();
    });
  });
  const nextLine = (ms: number): Promise<string | undefined | 'timeout'> => {
    const queued = lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (exited) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        waiting = undefined;
        resolve('timeout');
      }, ms);
      waiting = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
  };
  const redact = (s: string) => (spec.redactor ? spec.redactor.text(s) : s);
  const lastStderr = () => redact(stderr.trim().split('\n').slice(-3).join(' | '));

  let dead: string | undefined;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      child.stdin!.end();
      await Promise.race([whenExited, new Promise((r) => setTimeout(r, CLOSE_GRACE_MS))]);
      // The group, not just the probe: plugins the client started (or left) go with it.
      killGroup(child);
      await Promise.race([whenExited, new Promise((r) => setTimeout(r, CLOSE_GRACE_MS))]);
      live.delete(child);
      child.stdout!.destroy();
      child.stderr!.destroy();
      dead ??= 'closed';
    })();
    return closing;
  };
  spec.signal?.addEventListener('abort', () => void close(), { once: true });

  const first = await nextLine(spec.startTimeoutMs ?? 30_000);
  const parsed = typeof first === 'string' ? parseAnswer(first) : undefined;
  if (!parsed?.ready) {
    await close();
    const why =
      first === 'timeout'
        ? `printed nothing within ${formatMs(spec.startTimeoutMs ?? 30_000)}`
        : parsed?.fatal
          ? parsed.fatal
          : first === undefined
            ? `${exited ?? 'ended'} before it was ready`
            : `said ${JSON.stringify(first.slice(0, 200))}`;
    throw new Error(
      `the ${spec.client} probe could not start: ${redact(why)}${stderr.trim() && !parsed?.fatal ? ` (stderr: ${lastStderr()})` : ''}`,
    );
  }

  let seq = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const request = (path: string): Promise<ProbeResponse> => {
    const run = async (): Promise<ProbeResponse> => {
      const n = ++seq;
      const t0 = performance.now();
      const ms = () => Math.round(performance.now() - t0);
      if (dead || exited)
        return { seq: n, error: `the ${spec.client} probe is not running (${dead ?? exited})`, ms: 0 };
      child.stdin!.write(`${JSON.stringify({ path })}\n`);
      const limit = spec.timeoutMs + (n === 1 ? (spec.firstRequestSlackMs ?? 0) : 0);
      const line = await nextLine(limit);
      if (line === 'timeout') {
        dead = `killed after request ${n} got no answer within ${formatMs(limit)}`;
        killGroup(child);
        return {
          seq: n,
          error: `no answer within ${formatMs(limit)}: ${spec.client} is stuck (a plugin that never answers blocks it); the probe and its plugins were killed`,
          ms: ms(),
        };
      }
      if (line === undefined) {
        dead = exited ?? 'ended';
        return {
          seq: n,
          error: `the ${spec.client} probe ${dead} during the request${stderr.trim() ? ` (stderr: ${lastStderr()})` : ''}`,
          ms: ms(),
        };
      }
      const a = parseAnswer(line);
      if (!a)
        return {
          seq: n,
          error: `the ${spec.client} probe answered ${JSON.stringify(redact(line).slice(0, 200))}, not a JSON answer`,
          ms: ms(),
        };
      return {
        seq: n,
        ...(typeof a.status === 'number' && a.status > 0 ? { status: a.status } : {}),
        ...(typeof a.error === 'string' && a.error ? { error: redact(a.error) } : {}),
        ...(Array.isArray(a.transportErrors) && a.transportErrors.length > 0
          ? { transportErrors: a.transportErrors.map((e) => redact(String(e))) }
          : {}),
        ms: ms(),
      };
    };
    const next = queue.then(run, run);
    queue = next;
    return next;
  };

  return {
    client: spec.client,
    ready: parsed,
    request,
    log: () => redact(stderr),
    close,
    ...(spec.notes && spec.notes.length > 0 ? { notes: spec.notes } : {}),
  };
}

function parseAnswer(line: string): Answer | undefined {
  try {
    const v = JSON.parse(line) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Answer) : undefined;
  } catch {
    return undefined;
  }
}
