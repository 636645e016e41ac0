import { describe, expect, test } from '@jest/globals';
import { goExitCode, goForkExecError, goProcessState, goSignalText } from './go-exec.ts';

describe("Go's words for how a plugin ended", () => {
  test('(*ProcessState).String(): exit status N, or signal: <Go signal name>', () => {
    expect(goProcessState({ exitCode: 2 })).toBe('exit status 2');
    expect(goProcessState({ signal: 'SIGSEGV' })).toBe('signal: segmentation fault');
    expect(goProcessState({ signal: 'SIGKILL' })).toBe('signal: killed');
    expect(goProcessState({ signal: 'SIGTERM' })).toBe('signal: terminated');
    expect(goProcessState({ signal: 'SIGABRT' })).toBe('signal: aborted');
  });

  test("syscall.Signal's names, and Go's fallback for numbers it has no name for", () => {
    expect(
      ['SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGILL', 'SIGBUS', 'SIGFPE', 'SIGPIPE', 'SIGUSR1'].map(goSignalText),
    ).toEqual([
      'hangup',
      'interrupt',
      'quit',
      'illegal instruction',
      'bus error',
      'floating point exception',
      'broken pipe',
      'user defined signal 1',
    ]);
    expect(goSignalText('SIGSTKFLT')).toBe('stack fault');
    expect(goSignalText('SIGNOSUCH')).toBe('SIGNOSUCH');
  });

  test('(*ProcessState).ExitCode(): -1 for a process a signal ended', () => {
    expect(goExitCode({ exitCode: 3 })).toBe(3);
    expect(goExitCode({ signal: 'SIGSEGV' })).toBe(-1);
  });

  test("fork/exec errors with Go's errno strings", () => {
    expect(goForkExecError('/p', 'ENOEXEC')).toBe('fork/exec /p: exec format error');
    expect(goForkExecError('/p', 'EACCES')).toBe('fork/exec /p: permission denied');
  });
});
