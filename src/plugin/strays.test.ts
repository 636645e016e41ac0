// findStrays must find what a plugin left behind, and nothing else: a process
// it reports gets SIGKILL, so an unrelated one must never be among them.
import { afterAll, describe, expect, test } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { farEnds, fdTarget, findStrays, MARKER_ENV } from './strays.ts';

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
    const found = findStrays({ marker: 'no-such-run', outputs: new Map(), scanAll: true, guess: true });
    expect(found.map((s) => s.pid)).not.toContain(other.pid);
    expect(found).toEqual([]);
  });

  test('ignores output targets that are paths: /dev/null is open everywhere', () => {
    expect(findStrays({ marker: 'no-such-run', outputs: new Map([['/dev/null', 'stdout']]), scanAll: true })).toEqual([]);
  });

  test('finds an unmarked process only by the far end of our output socket', async () => {
    const holder = sleeper();
    const ours = fdTarget(process.pid, (holder.stdout as unknown as { _handle: { fd: number } })._handle.fd)!;
    const far = await farEnds(new Map([[ours, 'stdout']]));
    expect([...far.keys()]).toEqual([fdTarget(holder.pid!, 1)]);
    const found = findStrays({ marker: 'no-such-run', outputs: far, scanAll: true });
    expect(found.map(({ pid, holds }) => ({ pid, holds }))).toEqual([{ pid: holder.pid, holds: ['stdout'] }]);
  });

  test('finds marked processes, holding an output or not', () => {
    const marked = sleeper({ PATH: process.env.PATH, [MARKER_ENV]: 'run-1' });
    expect(findStrays({ marker: 'run-1', outputs: new Map() }).map((s) => s.pid)).toEqual([marked.pid]);
    expect(findStrays({ marker: 'run-2', outputs: new Map() })).toEqual([]);
  });
});
