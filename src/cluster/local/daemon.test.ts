import { describe, test, expect, afterEach } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandError, TimeoutError } from '../../core/errors.ts';
import { noopLogger } from '../../core/logger.ts';
import { isAlive } from '../../core/pids.ts';
import { fatalLine, recordedPid, runningDaemons, startDaemon, stopDaemon, waitFor } from './daemon.ts';

let dir: string;
const dirs = () => ({ pids: join(dir, 'pids'), logs: join(dir, 'logs') });

afterEach(async () => {
  await stopDaemon(dirs().pids, 'sleeper', 500).catch(() => {});
  await stopDaemon(dirs().pids, 'kube-apiserver', 500).catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

describe('daemons', () => {
  test('start detached with a pid file and a log file, and stop on SIGTERM', async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-daemon-'));
    const d = await startDaemon(
      { name: 'sleeper', bin: '/bin/sh', args: ['-c', 'echo started; while :; do sleep 1; done'] },
      dirs(),
      noopLogger,
    );
    expect(await recordedPid(dirs().pids, 'sleeper')).toBe(d.pid);
    await waitFor('the log line', async () => (await readFile(d.logFile, 'utf8')).includes('started'), {
      timeoutMs: 5000,
    });
    expect(await stopDaemon(dirs().pids, 'sleeper')).toBe(true);
    expect(
      isAlive(d.pid) && !(await readFile(`/proc/${d.pid}/stat`, 'utf8').catch(() => ') Z ')).includes(') Z '),
    ).toBe(false);
    expect(await stopDaemon(dirs().pids, 'sleeper')).toBe(false);
  });

  test('a pid file whose process runs another binary is not ours (recycled pid)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-daemon-'));
    await rm(dirs().pids, { recursive: true, force: true });
    await startDaemon({ name: 'sleeper', bin: '/bin/sleep', args: ['30'] }, dirs(), noopLogger);
    await writeFile(join(dirs().pids, 'other.pid'), `${process.pid}\n/usr/bin/etcd\n`);
    expect(await recordedPid(dirs().pids, 'other')).toBeUndefined();
  });

  test('waitFor ends at once with the log tail when the daemon dies', async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-daemon-'));
    const d = await startDaemon(
      { name: 'crasher', bin: '/bin/sh', args: ['-c', 'echo "Error: fatal: bad flag --x"; exit 3'] },
      dirs(),
      noopLogger,
    );
    const t0 = Date.now();
    const err = await waitFor('never', async () => false, { timeoutMs: 20_000, daemon: d }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandError);
    expect((err as CommandError).reason).toBe('crasher exited while waiting for never: Error: fatal: bad flag --x');
    expect((err as CommandError).detail).toContain('fatal: bad flag --x');
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  test('waitFor also ends at once when a daemon it depends on dies (a killed API server is named, not a 90 s node timeout)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-daemon-'));
    const waited = await startDaemon({ name: 'sleeper', bin: '/bin/sleep', args: ['30'] }, dirs(), noopLogger);
    await startDaemon(
      {
        name: 'kube-apiserver',
        bin: '/bin/sh',
        args: ['-c', 'sleep 0.3; echo "E1122 00:00:00.1 1 run.go:72] \\"command failed\\" err=\\"killed\\""; exit 1'],
      },
      dirs(),
      noopLogger,
    );
    const dependsOn = await runningDaemons(dirs(), ['kube-apiserver', 'etcd']);
    expect(dependsOn.map((d) => d.name)).toEqual(['kube-apiserver']);
    const t0 = Date.now();
    const err = await waitFor('node Ready', async () => false, { timeoutMs: 20_000, daemon: waited, dependsOn }).catch(
      (e: unknown) => e,
    );
    expect((err as CommandError).reason).toBe('kube-apiserver exited while waiting for node Ready: killed');
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  test('waitFor says what it awaited and for how long', async () => {
    const err = await waitFor('the moon', async () => false, { timeoutMs: 300, intervalMs: 50 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).reason).toBe('the moon did not happen within 0s');
  });

  test('a missing binary is a clear error', async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-daemon-'));
    await expect(
      startDaemon({ name: 'ghost', bin: '/nonexistent/etcd', args: [] }, dirs(), noopLogger),
    ).rejects.toThrow(/could not start ghost: spawn \/nonexistent\/etcd ENOENT/);
  });
});

describe('fatalLine', () => {
  test('finds a Go panic above its stack', () => {
    const log = [
      'panic: failed to merge global and in-flight KubeletConfiguration while setting defaults, error: unrecognized feature gate: NoSuchGate',
      '',
      'goroutine 1 [running]:',
      'main.main()',
      '\tk8s.io/kubernetes/cmd/kubelet/kubelet.go:37 +0x2a',
    ].join('\n');
    expect(fatalLine(log)).toBe(
      'failed to merge global and in-flight KubeletConfiguration while setting defaults, error: unrecognized feature gate: NoSuchGate'.replace(
        /^/,
        'panic: ',
      ),
    );
  });

  test('takes the err of a "command failed" line', () => {
    const log =
      'I1122 03:15:16.33 27764 handler.go:309] Adding GroupVersion\nE1122 03:15:16.339691   27764 run.go:72] "command failed" err="cannot use public IP 127.0.0.1 with endpoint reconciler: may not be in the loopback range"';
    expect(fatalLine(log)).toBe(
      'cannot use public IP 127.0.0.1 with endpoint reconciler: may not be in the loopback range',
    );
  });

  test('says nothing when the log has no error', () => {
    expect(fatalLine('I1122 all good\n')).toBeUndefined();
  });

  test('falls back to the last error line, unless only a fatal one will do (a component killed under a run)', () => {
    const log = 'time="2026-11-25T00:33:42Z" level=error msg="PullImage \\"r.test/unmatched:v1\\" failed"\n';
    expect(fatalLine(log)).toContain('PullImage');
    expect(fatalLine(log, { lastErrorToo: false })).toBeUndefined();
  });
});
