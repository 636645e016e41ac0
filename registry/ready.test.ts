import { describe, test, expect } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ready } from './ready.ts';
import { freePort } from '../src/core/ports.ts';

describe('Ready', () => {
  test('a timeout says what was awaited and for how long', async () => {
    const port = await freePort();
    await expect(Ready.http('/v2/', { timeoutMs: 150 }).wait({ url: `http://127.0.0.1:${port}` })).rejects.toThrow(
      'HTTP 200/401 from GET /v2/ did not happen within 150ms',
    );
  });

  test('a dead process ends the wait at once with its reason', async () => {
    const t0 = Date.now();
    await expect(
      Ready.logLine(/listening/).wait(
        { url: 'http://127.0.0.1:1', logFile: '/nonexistent', exited: () => 'registry process exited (code 1)' },
        5000,
      ),
    ).rejects.toThrow('gave up waiting for log line matching /listening/: registry process exited (code 1)');
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  test('all() hands its timeout to children without one and resolves when every child is ready', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-ready-'));
    try {
      const log = join(dir, 'log');
      await writeFile(log, 'msg="listening on 127.0.0.1:5000"\n');
      await expect(
        Ready.all(Ready.logLine(/listening on/), Ready.logLine(/never/))
          .withTimeout(100)
          .wait({ url: 'http://x', logFile: log }),
      ).rejects.toThrow(/log line matching \/never\/ did not happen within 100ms/);
      await expect(
        Ready.all(Ready.logLine(/listening on/)).wait({ url: 'http://x', logFile: log }),
      ).resolves.toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
