// findStrays must find what a plugin left behind, and nothing else: a process
// it reports gets SIGKILL, so an unrelated one must never be among them.
import { afterAll, describe, expect, test } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { fdTarget, findStrays, MARKER_ENV } from './strays.ts';

const started: ChildProcess[] = [];
afterAll(() => {
  for (const c of started) c.kill('SIGKILL');
});

function sleeper(env: NodeJS.ProcessEnv = { PATH: process.env.PATH }): ChildProcess {
  const c = spawn('sleep', ['30'], { stdio: ['ignore', 'pipe', 'pipe'], env });
  started.push(c);
  return c;
}

describe('findStrays', () => {
  test('never reports an unmarked process by a guess, even when the plugin\'s outputs are unknown', () => {
    // Unrelated processes with a pipe as stdout, like this one, are everywhere (shells, builds, log readers).
    const other = sleeper();
    const found = findStrays({ marker: 'no-such-run', outputs: new Map(), scanAll: true });
    expect(found.map((s) => s.pid)).not.toContain(other.pid);
    expect(found).toEqual([]);
  });

  test('ignores output targets that are paths: /dev/null is open everywhere', () => {
    expect(findStrays({ marker: 'no-such-run', outputs: new Map([['/dev/null', 'stdout']]), scanAll: true })).toEqual([]);
  });

  test('finds an unmarked process only by the plugin\'s own output socket', () => {
    const holder = sleeper();
    const target = fdTarget(holder.pid!, 1)!;
    expect(target).toMatch(/^(socket|pipe):\[\d+\]$/);
    const found = findStrays({ marker: 'no-such-run', outputs: new Map([[target, 'stdout']]), scanAll: true });
    expect(found.map(({ pid, holds }) => ({ pid, holds }))).toEqual([{ pid: holder.pid, holds: ['stdout'] }]);
  });

  test('finds marked processes, holding an output or not', () => {
    const marked = sleeper({ PATH: process.env.PATH, [MARKER_ENV]: 'run-1' });
    expect(findStrays({ marker: 'run-1', outputs: new Map() }).map((s) => s.pid)).toEqual([marked.pid]);
    expect(findStrays({ marker: 'run-2', outputs: new Map() })).toEqual([]);
  });
});
