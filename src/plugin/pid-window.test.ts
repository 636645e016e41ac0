// The pid window narrows the stray search to processes born since a spawn; it
// must never hide one of the run's processes, and must give up (every
// process is read again) whenever the pid counter may have gone round.
import { afterAll, describe, expect, test } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { markedAfter, newMarker, TEST_MARKER_ENV } from '../testing/processes.ts';
import { readOdometer } from './pid-odometer.ts';
import { openPidWindow, pidsInWindow } from './pid-window.ts';
import { isProcess } from './proc-files.ts';
import { findStrays, killStrays, MARKER_ENV } from './strays.ts';

const started: ChildProcess[] = [];
afterAll(() => {
  for (const c of started) c.kill('SIGKILL');
});

// Windows in these tests are opened when they are read, around a pid taken
// before: what they test is which pids they hold, not when one stops being
// trusted (a loaded machine's event loop may stall).
const fresh = (first: number) => ({ ...openPidWindow(), first });

function sleeper(env: NodeJS.ProcessEnv): ChildProcess {
  const c = spawn('sleep', ['30'], { stdio: 'ignore', env: { PATH: process.env.PATH, ...env } });
  started.push(c);
  return c;
}

describe('pidsInWindow', () => {
  test('holds the processes started since it opened, and not those started before', () => {
    const before = sleeper({});
    const first = spawnSync('true').pid!;
    const after = sleeper({});
    const pids = pidsInWindow(fresh(first));
    expect(pids).toContain(after.pid);
    expect(pids).not.toContain(before.pid);
  });

  test('gives up once the pid counter could have gone round since it opened', () => {
    // On a loaded machine the chain may break between opening and reading (the counter unread too long, as
    // readOdometer's test says): up to 5 tries for one window that reads, like that test.
    let first = 0;
    let opened: ReturnType<typeof openPidWindow>['opened'];
    let read: ReturnType<typeof pidsInWindow>;
    for (let i = 0; i < 5 && !read; i++) {
      first = spawnSync('true').pid!;
      ({ opened } = openPidWindow());
      read = pidsInWindow({ opened, first });
    }
    expect(read).toBeDefined();
    // A window from another chain of readings: between the two, the counter went unread too long.
    expect(pidsInWindow({ opened: { ...opened!, chain: -1 }, first })).toBeUndefined();
    // One the counter has moved too far since: it may have reached the window's pids again.
    expect(pidsInWindow({ opened: { ...opened!, travel: opened!.travel - opened!.free }, first })).toBeUndefined();
  });
});

test('readOdometer adds up how far the pid counter moved', async () => {
  // A chain breaks when the counter goes unread for too long (about 30 ms here), and forking a jest worker's big
  // process took longer than that five times running under CI. So a small shell forks instead, and the two readings
  // are taken 5 ms apart, as often as needed (up to 2 s) for one pair of a single chain.
  type Reading = NonNullable<ReturnType<typeof readOdometer>>;
  const churn = spawn('sh', ['-c', 'while :; do /bin/true; done'], { stdio: 'ignore' });
  let pair: { before: Reading; after: Reading } | undefined;
  try {
    await new Promise((up) => churn.once('spawn', up));
    for (const until = performance.now() + 2000; !pair && performance.now() < until;) {
      const before = readOdometer()!;
      for (const t = performance.now() + 5; performance.now() < t;);
      const after = readOdometer()!;
      if (after.chain === before.chain && after.travel > before.travel) pair = { before, after };
      await new Promise((next) => setImmediate(next));
    }
  } finally {
    churn.kill('SIGKILL');
  }
  expect(pair).toBeDefined();
  const { before, after } = pair!;
  // The distance the counter moved, also when it went past pid_max in between (then it started again from the bottom).
  if (after.lastPid > before.lastPid) expect(after.travel - before.travel).toBe(after.lastPid - before.lastPid);
  else expect(after.travel - before.travel).toBeGreaterThan(after.lastPid);
});

describe('findStrays in a window', () => {
  test('finds a helper that double-forked into a session of its own (no parent, group or session leads to it)', async () => {
    const marker = `${process.pid}.window-test`;
    // The plugin: a shell that starts a subshell which starts a setsid sleeper and exits at once.
    const plugin = spawn('sh', ['-c', '(setsid sleep 30 </dev/null >/dev/null 2>&1 &) ; exit 0'], {
      stdio: 'ignore',
      env: { PATH: process.env.PATH, [MARKER_ENV]: marker },
    });
    const first = plugin.pid!;
    await new Promise((r) => plugin.on('exit', r));
    let found = findStrays({ marker, outputs: new Map(), window: fresh(first) });
    // The helper may still be between its fork and its exec of sleep (its cmdline is then the shell's or setsid's).
    for (let i = 0; i < 50 && !found.some((s) => s.cmdline === 'sleep 30'); i++) {
      await new Promise((r) => setTimeout(r, 20));
      found = findStrays({ marker, outputs: new Map(), window: fresh(first) });
    }
    killStrays(found);
    expect(found.map((s) => s.cmdline)).toEqual(['sleep 30']);
  });

  test('reads every process when the window cannot be trusted', async () => {
    const testMarker = newMarker();
    const marker = `${process.pid}.window-fallback`;
    const old = sleeper({ [MARKER_ENV]: marker, [TEST_MARKER_ENV]: testMarker });
    const first = spawnSync('true').pid!;
    // The sleeper is older than the window: a trusted window leaves it out…
    expect(findStrays({ marker, outputs: new Map(), window: fresh(first) })).toEqual([]);
    // …an untrusted one falls back to every process, and finds it.
    const opened = openPidWindow().opened!;
    const stale = { opened: { ...opened, chain: -1 }, first };
    const found = findStrays({ marker, outputs: new Map(), window: stale });
    expect(found.map((s) => s.pid)).toEqual([old.pid]);
    killStrays(found);
    expect(await markedAfter(testMarker)).toEqual([]);
  });
});

test('isProcess tells a process from one of its threads (both answer in /proc)', () => {
  const threads = readdirSync(`/proc/${process.pid}/task`).map(Number);
  const other = threads.find((t) => t !== process.pid);
  expect(isProcess(process.pid)).toBe(true);
  // Node always runs a few threads (V8 platform workers) beside the main one.
  expect(other).toBeDefined();
  expect(isProcess(other!)).toBe(false);
});
