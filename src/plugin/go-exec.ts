// How Go's os/exec words a plugin's fate, so messages quote what the kubelet
// and client-go would log rather than Node's names for the same events.
import { constants } from 'node:os';

/** Go's syscall.Errno strings (zerrors_linux_amd64.go) for the errors execve gives a plugin. */
const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  ENOEXEC: 'exec format error',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
  E2BIG: 'argument list too long',
  ETXTBSY: 'text file busy',
  ENAMETOOLONG: 'file name too long',
  ENOMEM: 'cannot allocate memory',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
};

/** "exec format error" for ENOEXEC; an unknown code is shown as it is. */
export function goErrnoText(code: string): string {
  return ERRNO_TEXT[code] ?? code;
}

/** The *fs.PathError cmd.Start returns when execve fails: "fork/exec /path: exec format error". */
export function goForkExecError(file: string, code: string): string {
  return `fork/exec ${file}: ${goErrnoText(code)}`;
}

/** Go's syscall signal names on Linux (zerrors_linux_amd64.go), by number. */
const SIGNAL_TEXT: Record<number, string> = {
  1: 'hangup',
  2: 'interrupt',
  3: 'quit',
  4: 'illegal instruction',
  5: 'trace/breakpoint trap',
  6: 'aborted',
  7: 'bus error',
  8: 'floating point exception',
  9: 'killed',
  10: 'user defined signal 1',
  11: 'segmentation fault',
  12: 'user defined signal 2',
  13: 'broken pipe',
  14: 'alarm clock',
  15: 'terminated',
  16: 'stack fault',
  17: 'child exited',
  18: 'continued',
  19: 'stopped (signal)',
  20: 'stopped',
  21: 'stopped (tty input)',
  22: 'stopped (tty output)',
  23: 'urgent I/O condition',
  24: 'CPU time limit exceeded',
  25: 'file size limit exceeded',
  26: 'virtual timer expired',
  27: 'profiling timer expired',
  28: 'window changed',
  29: 'I/O possible',
  30: 'power failure',
  31: 'bad system call',
};

/** syscall.Signal.String() for Node's signal name: "segmentation fault" for SIGSEGV, "signal 34" for one Go has no name for. */
export function goSignalText(name: string): string {
  const n = (constants.signals as Record<string, number>)[name];
  if (n === undefined) return name;
  return SIGNAL_TEXT[n] ?? `signal ${n}`;
}

export interface ProcessEnd {
  exitCode?: number;
  signal?: string;
}

/**
 * (*os.ProcessState).String(): "exit status 2", or "signal: segmentation fault"
 * for a process a signal ended. (Go adds " (core dumped)" when the kernel wrote
 * a core; Node does not say, so that suffix is never shown.)
 */
export function goProcessState(end: ProcessEnd): string {
  if (end.signal) return `signal: ${goSignalText(end.signal)}`;
  return `exit status ${end.exitCode ?? -1}`;
}

/** (*os.ProcessState).ExitCode(): the exit code, or -1 when a signal ended the process. */
export function goExitCode(end: ProcessEnd): number {
  return end.signal ? -1 : (end.exitCode ?? -1);
}

/** In a sentence: "exited 3", or "was killed by signal: segmentation fault". */
export function describeEnd(end: ProcessEnd): string {
  return end.signal ? `was killed by ${goProcessState(end)}` : `exited ${end.exitCode ?? '?'}`;
}
