// The invocation log: every plugin run (kubelet plugin or exec plugin, fake or
// real) becomes one record. Checks and suites assert on these records; a
// misbehaving plugin is data, never an exception.
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Redactor } from '../core/redact.ts';
import { MAX_STDERR_BYTES, MAX_STDOUT_BYTES } from './output-capture.ts';
import type { StrayProcess } from './strays.ts';
import { endOfFirstValue } from '../core/json-text.ts';

export interface Invocation {
  id: string;
  /** Which contract: the kubelet's credential provider exec, or client-go's exec authenticator. */
  protocol: 'kubelet-credential-provider' | 'client-exec';
  startedAt: string;
  durationMs: number;
  argv: string[];
  /** The environment variables credprov set or the config names (names only: values may be secrets). */
  envKeys: string[];
  /** How many more the plugin inherited from the caller's environment, unnamed: they are the caller's, not the plugin's. */
  inheritedEnv?: number;
  /** What was written to stdin (parsed JSON when it was JSON). */
  request: unknown;
  stdout: string;
  stderr: string;
  exitCode?: number;
  signal?: string;
  timedOut: boolean;
  /** Spawn failed (ENOENT, EACCES, ENOEXEC …), in Go's words ("fork/exec <path>: exec format error"): the plugin never ran. */
  spawnError?: string;
  /** Why execve refused the file, when it did for its format: "the file is empty (0 bytes)". */
  spawnErrorWhy?: string;
  /** The decoded response when decoding succeeded. */
  response?: unknown;
  /** Why the response was refused, in the kubelet's (or client-go's) words. */
  decodeError?: string;
  /** Set when an output was cut: the bytes the plugin wrote to each (stdout and stderr keep what output-capture.ts keeps). */
  outputBytes?: { stdout: number; stderr: number };
  /** Processes the plugin left running after it exited (killed by the runner); `holds` names the outputs each kept open. */
  strays?: StrayProcess[];
}

export class InvocationLog {
  readonly records: Invocation[] = [];
  private counter = 0;

  private readonly file: string | undefined;
  private readonly redactor: Redactor | undefined;

  /** `file`: JSONL path to append to (redacted), or undefined to keep records in memory only. */
  constructor(file?: string, redactor?: Redactor) {
    this.file = file;
    this.redactor = redactor;
  }

  nextId(prefix = 'inv'): string {
    this.counter += 1;
    return `${prefix}-${String(this.counter).padStart(4, '0')}`;
  }

  async append(inv: Invocation): Promise<void> {
    this.records.push(inv);
    if (!this.file) return;
    const short = clipOutputs(inv);
    const safe = this.redactor ? this.redactor.value(short) : short;
    await mkdir(dirname(this.file), { recursive: true });
    await appendFile(this.file, `${JSON.stringify(safe)}\n`);
  }
}

/** Outputs longer than this are cut in the log file; the record in memory keeps what the runner kept. */
export const MAX_LOGGED_OUTPUT = 64 * 1024;
/** A decoded answer's auth map is logged with at most this many entries (a 5 MiB answer can hold 40,000). */
export const MAX_LOGGED_AUTH_ENTRIES = 50;

/** The invocation with stdout and stderr cut to MAX_LOGGED_OUTPUT characters each, and a huge auth map cut, saying so. */
export function clipOutputs<T extends Invocation>(inv: T): T {
  const clip = (s: string) =>
    s.length > MAX_LOGGED_OUTPUT ? `${s.slice(0, MAX_LOGGED_OUTPUT)}… (cut: ${s.length} characters in all)` : s;
  const response = clipAuth(inv.response);
  if (inv.stdout.length <= MAX_LOGGED_OUTPUT && inv.stderr.length <= MAX_LOGGED_OUTPUT && response === inv.response)
    return inv;
  return { ...inv, stdout: clip(inv.stdout), stderr: clip(inv.stderr), ...(response ? { response } : {}) };
}

function clipAuth(response: unknown): unknown {
  const auth = (response as { auth?: unknown } | undefined)?.auth;
  if (!auth || typeof auth !== 'object') return response;
  const keys = Object.keys(auth);
  if (keys.length <= MAX_LOGGED_AUTH_ENTRIES) return response;
  const kept = Object.fromEntries(
    keys.slice(0, MAX_LOGGED_AUTH_ENTRIES).map((k) => [k, (auth as Record<string, unknown>)[k]]),
  );
  return { ...(response as object), auth: kept, authEntriesNotShown: keys.length - MAX_LOGGED_AUTH_ENTRIES };
}

/** Whether the runner kept less of `stream` than the plugin wrote. */
export function wasCut(inv: Invocation, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  const total = inv.outputBytes?.[stream];
  return total !== undefined && total > Buffer.byteLength(inv[stream]);
}

/**
 * " (stdout was 32.0 MiB; credprov kept the first 64.0 KiB: nothing after the
 * JSON object can change the verdict)" when the runner cut that output, else "".
 */
export function cutNote(inv: Invocation, stream: 'stdout' | 'stderr' = 'stdout'): string {
  if (!wasCut(inv, stream)) return '';
  const kept = Buffer.byteLength(inv[stream]);
  const why =
    stream === 'stderr'
      ? ''
      : kept < MAX_STDOUT_BYTES
        ? ': what follows cannot change the verdict'
        : `: credprov keeps at most ${size(MAX_STDOUT_BYTES)}`;
  return ` (${stream} was ${size(inv.outputBytes![stream])}; credprov kept the first ${size(kept)}${why})`;
}

/**
 * "stdout was cut at 67108864 bytes of 70000000" when the runner stopped
 * keeping stdout at its own limit inside what may be one valid answer (an
 * object not yet closed, or closed with only blanks after it): then nothing
 * about the answer can be judged, and that is credprov's limit, not the
 * plugin's fault. Undefined when stdout was not cut, or when what was kept
 * already decides the verdict (noise after the object, a first byte that is
 * not '{'), which the stdout checks report with cutNote.
 */
export function cutResponse(inv: Invocation): string | undefined {
  const total = inv.outputBytes?.stdout;
  if (total === undefined || !wasCut(inv) || !couldBeOneObject(inv.stdout)) return undefined;
  return `stdout was cut at ${Buffer.byteLength(inv.stdout)} bytes of ${total}`;
}

/** The runner's limits, for messages. */
export const OUTPUT_LIMITS = { stdout: MAX_STDOUT_BYTES, stderr: MAX_STDERR_BYTES };

function couldBeOneObject(text: string): boolean {
  const start = text.search(/\S/);
  if (start < 0) return true;
  if (text[start] !== '{') return false;
  // Not closed yet: the cut may have fallen inside the one object.
  const end = endOfFirstValue(text, start);
  return end === undefined || text.slice(end).trim() === '';
}

/** 32.0 MiB, 64.0 KiB, 812 bytes. */
export function size(bytes: number): string {
  if (bytes >= 1024 * 1024) {
    const m = bytes / (1024 * 1024);
    return Number.isInteger(m) ? `${m} MiB` : `${m.toFixed(1)} MiB`;
  }
  if (bytes >= 1024) {
    const k = bytes / 1024;
    return Number.isInteger(k) ? `${k} KiB` : `${k.toFixed(1)} KiB`;
  }
  return `${bytes} bytes`;
}

/** Reads a JSONL invocation log (the harness's or one written by a fake plugin); skips torn lines. */
export async function readInvocationLog<T = Invocation>(file: string): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: T[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // A plugin killed mid-write leaves a torn last line; it is not a record.
    }
  }
  return out;
}
