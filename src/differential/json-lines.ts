// A long-lived probe process asked many questions at once over JSON lines:
// each request carries an id, each answer the same id, and answers may come
// back in any order (the probe answers concurrently). The first line the
// probe prints says it is ready. One process judges thousands of cases.
// What an answer means (an `error` may be the probe's or the client's) is the caller's to read.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface JsonLines {
  ask<T>(request: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

/** Gives up on a probe that does not say it is ready (a build that cannot start, a hung loader). */
const READY_MS = 60_000;

export async function startJsonLines(
  file: string,
  args: string[],
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<JsonLines> {
  const child: ChildProcess = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString('utf8')).slice(-8192);
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let exited: Error | undefined;
  const fail = (why: string) => {
    exited = new Error(`${name} ${why}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`);
    for (const p of pending.values()) p.reject(exited);
    pending.clear();
  };
  let ready!: () => void;
  let notReady!: (e: Error) => void;
  const started = new Promise<void>((res, rej) => {
    ready = res;
    notReady = rej;
  });
  child.once('error', (e) => {
    fail(`could not start: ${e.message}`);
    notReady(exited!);
  });
  child.once('exit', (code, signal) => {
    fail(`exited (${signal ?? `code ${code}`})`);
    notReady(exited!);
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let msg: { id?: number; ready?: string; fatal?: string; error?: string };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      return;
    }
    if (msg.ready) return ready();
    if (msg.fatal) return fail(`failed: ${msg.fatal}`);
    const p = msg.id !== undefined ? pending.get(msg.id) : undefined;
    if (!p) return;
    pending.delete(msg.id!);
    p.resolve(msg);
  });
  const timer = setTimeout(
    () => notReady(new Error(`${name} did not say it was ready within ${READY_MS / 1000}s`)),
    READY_MS,
  );
  try {
    await started;
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return {
    ask<T>(request: Record<string, unknown>): Promise<T> {
      if (exited) return Promise.reject(exited);
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.stdin!.write(`${JSON.stringify({ ...request, id })}\n`);
      });
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.stdin!.end();
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    },
  };
}
