// findStrays must find what a plugin left behind, and nothing else: a process
// it reports gets SIGKILL, so an unrelated one must never be among them.
import { afterAll, describe, expect, test } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fdTarget } from './proc-files.ts';
import { farEnds, findStrays, MARKER_ENV, newRunMarker, sweepOrphanedRuns, warnOfOrphans } from './strays.ts';

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
  test("never reports an unmarked process by a guess, even when the plugin's outputs are unknown", () => {
    // Unrelated processes with a pipe as stdout, like this one, are everywhere (shells, builds, log readers).
    const other = sleeper();
    const found = findStrays({ marker: 'no-such-run', outputs: new Map(), scanAll: true, guess: true });
    expect(found.map((s) => s.pid)).not.toContain(other.pid);
    expect(found).toEqual([]);
  });

  test('ignores output targets that are paths: /dev/null is open everywhere', () => {
    expect(findStrays({ marker: 'no-such-run', outputs: new Map([['/dev/null', 'stdout']]), scanAll: true })).toEqual(
      [],
    );
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

describe('sweepOrphanedRuns', () => {
  test('kills marked processes whose credprov is gone, and only those', async () => {
    // A pid that no longer runs: a process that has exited and been reaped.
    const gone = spawnSync('true').pid;
    const orphan = sleeper({ PATH: process.env.PATH, [MARKER_ENV]: `${gone}.0b5e` });
    const ours = sleeper({ PATH: process.env.PATH, [MARKER_ENV]: newRunMarker() });
    const legacy = sleeper({ PATH: process.env.PATH, [MARKER_ENV]: '6f1c9a50-7d3e-4f7a-9d51-5a1b8f2c0e11' });
    const exited = new Promise((r) => orphan.on('exit', r));
    const swept = sweepOrphanedRuns();
    expect(swept.map((s) => s.pid)).toContain(orphan.pid);
    expect(swept.map((s) => s.pid)).not.toContain(ours.pid);
    expect(swept.map((s) => s.pid)).not.toContain(legacy.pid);
    await exited;
    expect(ours.exitCode).toBeNull();
    expect(legacy.exitCode).toBeNull();
  });
});

test('warnOfOrphans names the pid and executable, never the arguments (they may carry secrets)', () => {
  const said: string[] = [];
  warnOfOrphans({ warn: (m) => said.push(m) }, [
    { pid: 4242, cmdline: '/opt/vendor/bin/plugin --password hunter2', holds: [] },
  ]);
  expect(said).toEqual([
    'killed pid 4242 (plugin): left running by a plugin run whose credprov died before it could clean up',
  ]);
});
