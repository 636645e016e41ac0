// Runs one plugin process and always comes back, by its deadline, whatever
// the plugin and its descendants do. Both runners (kubelet-exec.ts,
// client-exec.ts) sit on this; they add the protocol around it.
//
// Waiting for stdout's end of file is how the kubelet and client-go read a
// plugin (os/exec without WaitDelay), and how a plugin that leaves a process
// holding its stdout hangs them. Here the wait is bounded instead, the way Go's
// exec.Cmd.WaitDelay bounds it:
//   - once the plugin itself has exited, its outputs get WAIT_DELAY_MS to close
//     (and a process found holding one, CONFIRM_MS more to let go);
//   - at the timeout its process group is killed, and the run ends at the
//     latest KILL_GRACE_MS + WAIT_DELAY_MS + CONFIRM_MS (about 2s) later, exited or not;
//   - then every process the run left behind (strays.ts: marked environment,
//     or holding an output) is killed and reported, with its pid and cmdline.
//     When the outputs closed with the plugin (the usual case), only the
//     processes born since the spawn are read (pid-window.ts); an output still
//     open means a holder, who may be any process, so then all are read.
// A file execve would refuse (a script without #!) is refused here too, with
// ENOEXEC, before spawn's execvp can run it with /bin/sh (exec-format.ts).
// node:child_process rather than execa: this is the hot path, execa's stream
// machinery costs ~3ms a run, and the contract is small enough to own.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { resolve as resolvePath } from 'node:path';
import { execveFormatError, formatRefusalReason } from './exec-format.ts';
import { Capture, MAX_STDERR_BYTES, MAX_STDOUT_BYTES, type StdoutReader } from './output-capture.ts';
import { openPidWindow } from './pid-window.ts';
import { fdTarget } from './proc-files.ts';
import {
  farEnds,
  findStrays,
  killStrays,
  MARKER_ENV,
  newRunMarker,
  type OutputName,
  type StrayProcess,
} from './strays.ts';
import { sleep } from '../core/time.ts';

/** After the plugin exited, how long its outputs may stay open before we look for who holds them. */
export const WAIT_DELAY_MS = 250;
/** After the kill at the timeout, how long the plugin may take to be reaped before the run ends anyway. */
export const KILL_GRACE_MS = 1000;
/** A process found holding an output must still hold it this much later to count as a holder. */
export const CONFIRM_MS = 500;
/** After killing the holders, how long to wait for the last output bytes before closing our ends. */
const DRAIN_MS = 100;

export type StdinMode =
  /** Written, then closed. */
  | { kind: 'data'; data: string }
  /** /dev/null. */
  | { kind: 'ignore' }
  /** A pipe nobody writes to or closes. */
  | { kind: 'open' }
  /** Our own stdin (a terminal); the plugin then stays in our process group. */
  | { kind: 'inherit' };

export interface PluginProcess {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  stdin: StdinMode;
  timeoutMs: number;
  /** How the caller reads stdout: the kubelet JSON only, client-go JSON or YAML (output-capture.ts keeps what can decide it). */
  stdoutReader: StdoutReader;
}

export interface ProcessResult {
  stdout: string;
  stderr: string;
  /** Bytes the plugin wrote to each; more than the text holds means it was cut (output-capture.ts). */
  outputBytes: { stdout: number; stderr: number };
  exitCode?: number;
  signal?: string;
  timedOut: boolean;
  /** The spawn failed (ENOENT, EACCES, ENOEXEC …): the plugin never ran. */
  spawnErrorCode?: string;
  /** For ENOEXEC: why the kernel has no loader for the file ("the file is empty (0 bytes)"). */
  spawnErrorWhy?: string;
  /** Processes the run left behind, killed by us; `holds` names the outputs each kept open. */
  strays: StrayProcess[];
}

interface Running {
  abort(): void;
  killNow(): void;
}

// Runs still in flight, for Ctrl-C and for our own exit.
const running = new Set<Running>();
let exitHookInstalled = false;

/** Ends every run in flight now: kills the plugins and what they left; each run resolves as it ends. */
export function abortRunningPlugins(): void {
  for (const r of running) r.abort();
}

export function runPluginProcess(p: PluginProcess): Promise<ProcessResult> {
  if (!exitHookInstalled) {
    // Like execa's cleanup: a plugin must not outlive credprov, even one exiting on an uncaught error.
    process.once('exit', () => {
      for (const r of running) r.killNow();
    });
    exitHookInstalled = true;
  }
  return new Promise((resolve) => {
    const marker = newRunMarker();
    const detached = p.stdin.kind !== 'inherit';
    const stdio: StdioOptions = [
      p.stdin.kind === 'inherit' ? 'inherit' : p.stdin.kind === 'ignore' ? 'ignore' : 'pipe',
      'pipe',
      'pipe',
    ];
    const failed = (code: string | undefined, why?: string): ProcessResult => ({
      stdout: '',
      stderr: '',
      outputBytes: { stdout: 0, stderr: 0 },
      timedOut: false,
      spawnErrorCode: code ?? 'EUNKNOWN',
      ...(why ? { spawnErrorWhy: why } : {}),
      strays: [],
    });
    // Go's os/exec has no /bin/sh fallback: a file execve refuses never runs.
    const path = resolvePath(p.cwd ?? process.cwd(), p.file);
    if (p.file.includes('/') && execveFormatError(path) === 'ENOEXEC') {
      resolve(failed('ENOEXEC', formatRefusalReason(path)));
      return;
    }
    // Before the spawn: the plugin may fork before spawn() returns.
    const opened = openPidWindow();
    let child: ChildProcess;
    try {
      // Own process group (detached), so a timeout kills everything that stayed in it.
      child = spawn(p.file, p.args, {
        env: { ...p.env, [MARKER_ENV]: marker },
        detached,
        stdio,
        ...(p.cwd ? { cwd: p.cwd } : {}),
      });
    } catch (e) {
      resolve(failed((e as NodeJS.ErrnoException).code));
      return;
    }
    const pid = child.pid;
    if (pid === undefined) {
      child.once('error', (e: NodeJS.ErrnoException) => resolve(failed(e.code)));
      return;
    }
    // Our ends of stdout/stderr: what a stray holding the far end is found by
    // (farEnds). Not the plugin's fd 1 and 2: a shell may have pointed them
    // at /dev/null for a moment, and a path would match anyone's process.
    const ours = new Map<string, OutputName>();
    for (const [stream, name] of [
      [child.stdout, 'stdout'],
      [child.stderr, 'stderr'],
    ] as const) {
      const fd = (stream as unknown as { _handle?: { fd?: number } })._handle?.fd;
      const target = fd !== undefined && fd >= 0 ? fdTarget(process.pid, fd) : undefined;
      if (target) ours.set(target, name);
    }

    const out = new Capture(MAX_STDOUT_BYTES, p.stdoutReader);
    const err = new Capture(MAX_STDERR_BYTES);
    child.stdout!.on('data', (d: Buffer) => out.add(d));
    child.stderr!.on('data', (d: Buffer) => err.add(d));
    // Errors after a successful spawn (a kill racing an exit) change nothing.
    child.on('error', () => {});
    if (child.stdin) {
      // A plugin that exits without reading its stdin closes the pipe: EPIPE is its business, not ours.
      child.stdin.on('error', () => {});
      if (p.stdin.kind === 'data') child.stdin.end(p.stdin.data);
    }

    let timedOut = false;
    let groupKilled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let finishing = false;
    const timers: Array<() => void> = [];
    let closed!: () => void;
    const whenClosed = new Promise<void>((r) => (closed = r));

    const killGroup = () => {
      groupKilled = true;
      try {
        process.kill(detached ? -pid : pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };

    const finish = async (outputsClosed: boolean, confirm = true) => {
      if (finishing) return;
      finishing = true;
      for (const cancel of timers) cancel();
      // Left behind: marked processes, and whoever holds an output that is still open.
      const outputs = outputsClosed ? new Map<string, OutputName>() : await farEnds(ours);
      const look = () =>
        findStrays(
          outputsClosed
            ? { marker, outputs: new Map(), window: { ...opened, first: pid } }
            : { marker, outputs, scanAll: true, guess: true },
        );
      let found = look();
      if (confirm && !outputsClosed && found.some((s) => s.holds.length > 0)) {
        // A holder gets one more chance: a background job of the plugin may
        // just be slow to redirect its output (a loaded machine). Only what
        // still holds an output after CONFIRM_MS is reported as holding it.
        outputsClosed = await Promise.race([whenClosed.then(() => true), sleep(CONFIRM_MS).then(() => false)]);
        found = look();
      }
      killStrays(found);
      const groupWasKilled = groupKilled;
      killGroup();
      if (!outputsClosed) await Promise.race([whenClosed, sleep(DRAIN_MS)]);
      running.delete(handle);
      child.stdout!.destroy();
      child.stderr!.destroy();
      child.stdin?.destroy();
      // Members of its own group we killed at the timeout may still be dying: not leftovers.
      const strays = found
        .filter((s) => s.holds.length > 0 || !groupWasKilled || s.pgid !== pid)
        .map(({ pgid: _, ...s }) => s);
      resolve({
        stdout: out.text(),
        stderr: err.text(),
        outputBytes: { stdout: out.size, stderr: err.size },
        timedOut,
        ...(exit?.code != null ? { exitCode: exit.code } : {}),
        ...(exit?.signal ? { signal: exit.signal } : exit ? {} : { signal: 'SIGKILL' }),
        strays,
      });
    };

    const handle: Running = {
      abort: () => {
        killGroup();
        void finish(false, false);
      },
      killNow: () => {
        killGroup();
        killStrays(findStrays({ marker, outputs: new Map() }));
      },
    };
    running.add(handle);

    timers.push(
      longTimeout(() => {
        timedOut = true;
        killGroup();
      }, p.timeoutMs),
      // Whatever happens, the run ends here (at most CONFIRM_MS + DRAIN_MS later).
      longTimeout(() => void finish(false), p.timeoutMs + KILL_GRACE_MS + WAIT_DELAY_MS),
    );
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      if (!finishing) timers.push(longTimeout(() => void finish(false), WAIT_DELAY_MS));
    });
    child.on('close', (code, signal) => {
      exit ??= { code, signal };
      closed();
      void finish(true);
    });
  });
}

/** The longest delay one Node timer holds; a longer one fires after 1 ms (with a TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * setTimeout for any delay: --timeout 597h is over MAX_TIMER_MS, so the wait is
 * made of timers of at most that length. Returns the function that cancels it.
 */
export function longTimeout(fn: () => void, ms: number): () => void {
  let timer: NodeJS.Timeout;
  if (!(ms > MAX_TIMER_MS)) {
    timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  }
  let left = ms;
  const next = () => {
    const chunk = Math.min(left, MAX_TIMER_MS);
    left -= chunk;
    timer = setTimeout(left > 0 ? next : fn, chunk);
  };
  next();
  return () => clearTimeout(timer);
}
