// The invocation log: every plugin run (kubelet plugin or exec plugin, fake or
// real) becomes one record. Checks and suites assert on these records; a
// misbehaving plugin is data, never an exception.
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Redactor } from '../core/redact.ts';
import { MAX_OUTPUT_BYTES } from './spawn.ts';
import type { StrayProcess } from './strays.ts';
import { endOfFirstValue } from '../core/json-text.ts';

export interface Invocation {
  id: string;
  /** Which contract: the kubelet's credential provider exec, or client-go's exec authenticator. */
  protocol: 'kubelet-credential-provider' | 'client-exec';
  startedAt: string;
  durationMs: number;
  argv: string[];
  /** Names only: values may be secrets. */
  envKeys: string[];
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
  /** Set when an output was cut: the bytes the plugin wrote to each (stdout/stderr keep the first MAX_OUTPUT_BYTES). */
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

/** The invocation with stdout and stderr cut to MAX_LOGGED_OUTPUT characters each, saying so. */
export function clipOutputs<T extends Invocation>(inv: T): T {
  const clip = (s: string) =>
    s.length > MAX_LOGGED_OUTPUT ? `${s.slice(0, MAX_LOGGED_OUTPUT)}… (cut: ${s.length} characters in all)` : s;
  if (inv.stdout.length <= MAX_LOGGED_OUTPUT && inv.stderr.length <= MAX_LOGGED_OUTPUT) return inv;
  return { ...inv, stdout: clip(inv.stdout), stderr: clip(inv.stderr) };
}

/** " (stdout was 200.0 MiB; credprov kept the first 4 MiB)" when the runner cut that output, else "". */
export function cutNote(inv: Invocation, stream: 'stdout' | 'stderr' = 'stdout'): string {
  const total = inv.outputBytes?.[stream];
  if (total === undefined || total <= MAX_OUTPUT_BYTES) return '';
  return ` (${stream} was ${mib(total)}; credprov kept the first ${mib(MAX_OUTPUT_BYTES)})`;
}

/**
 * "stdout was cut at 4194304 bytes of 5349161" when the runner cut stdout and
 * what it kept could still be the start of one valid response (an object not
 * yet closed, or closed with only blanks after it): nothing about the response
 * can be judged then. Undefined when stdout was not cut, or when what was kept
 * already shows what is wrong (noise around the object, a second value), which
 * the stdout checks report with cutNote.
 */
export function cutResponse(inv: Invocation): string | undefined {
  const total = inv.outputBytes?.stdout;
  if (total === undefined || total <= MAX_OUTPUT_BYTES || !couldBeOneObject(inv.stdout)) return undefined;
  return `stdout was cut at ${MAX_OUTPUT_BYTES} bytes of ${total}`;
}

function couldBeOneObject(text: string): boolean {
  const start = text.search(/\S/);
  if (start < 0) return true;
  if (text[start] !== '{') return false;
  // Not closed yet: the cut may have fallen inside the one object.
  const end = endOfFirstValue(text, start);
  return end === undefined || text.slice(end).trim() === '';
}

function mib(bytes: number): string {
  const m = bytes / (1024 * 1024);
  return Number.isInteger(m) ? `${m} MiB` : `${m.toFixed(1)} MiB`;
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
