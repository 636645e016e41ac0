import { describe, test, expect } from '@jest/globals';
import { access, mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { memoryLogger } from '../core/logger.ts';
import { isAlive } from '../core/pids.ts';
import { useTempDir } from '../testing/tmp.ts';
import { daemonConfig, dockerdArgs, findDockerd, PrivateDockerd, sweepPrivateDockerds } from './dockerd.ts';

describe('a private dockerd', () => {
  const tmp = useTempDir('credprov-dockerd-test-');

  test('keeps every path under its dir and leaves host networking alone', () => {
    const args = dockerdArgs('/tmp/d');
    const value = (flag: string) => args[args.indexOf(flag) + 1];
    expect([
      value('--config-file'),
      value('--data-root'),
      value('--exec-root'),
      value('--pidfile'),
      value('-H'),
    ]).toEqual(['/tmp/d/daemon.json', '/tmp/d/data', '/tmp/d/exec', '/tmp/d/docker.pid', 'unix:///tmp/d/docker.sock']);
    expect(args).toEqual(
      expect.arrayContaining([
        '--bridge=none',
        '--iptables=false',
        '--ip6tables=false',
        '--ip-masq=false',
        '--ip-forward=false',
      ]),
    );
  });

  test('keeps its trust key out of /etc/docker where dockerd still has one (before 23)', () => {
    expect(daemonConfig('/tmp/d', 20)).toEqual({ 'deprecated-key-path': '/tmp/d/key.json' });
    expect(daemonConfig('/tmp/d', 27)).toEqual({});
  });

  test('is not available without dockerd, and says what to install', async () => {
    expect(await PrivateDockerd.available({ dockerd: '/nonexistent/dockerd' })).toEqual({
      ok: false,
      reason: '/nonexistent/dockerd not found (apt-get install docker.io, or scripts/setup.sh --kind)',
    });
    expect(await findDockerd({ PATH: '/nonexistent' })).toBe(
      await access('/usr/sbin/dockerd').then(
        () => '/usr/sbin/dockerd',
        () => undefined,
      ),
    );
  });

  test("sweep removes dirs of owners that died (and old dirs without owner), never a live owner's or a fresh one", async () => {
    const root = join(tmp(), 'sweep');
    const make = async (name: string, files: Record<string, string>) => {
      const d = join(root, `credprov-dockerd-${name}`);
      await mkdir(join(d, 'data'), { recursive: true });
      for (const [f, text] of Object.entries(files)) await writeFile(join(d, f), text);
      return d;
    };
    await make('live', { owner: `${process.pid}\n` });
    const dead = await make('dead', { owner: '999999\n' });
    // A pid file naming a live process that is not this dir's dockerd: never signalled.
    const reused = await make('reused', { owner: '999998\n', 'docker.pid': `${process.pid}\n` });
    await make('fresh', {});
    const old = await make('old', {});
    await utimes(old, new Date(0), new Date(0));
    await mkdir(join(root, 'unrelated'));
    const log = memoryLogger();
    expect((await sweepPrivateDockerds({ root, logger: log })).sort()).toEqual([dead, old, reused].sort());
    expect((await readdir(root)).sort()).toEqual(['credprov-dockerd-fresh', 'credprov-dockerd-live', 'unrelated']);
    expect(isAlive(process.pid)).toBe(true);
    expect(log.lines).toContain(`info: removing private dockerd ${dead}: its owner, pid 999999, is gone`);
  });
});
