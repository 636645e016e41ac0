import { describe, test, expect } from '@jest/globals';
import { createServer } from 'node:http';
import { Ready } from './ready.ts';
import { ReadyCheckWait } from './container-wait.ts';
import { freePort } from '../src/core/ports.ts';

describe('ReadyCheckWait (a harness ReadyCheck as a testcontainers wait strategy)', () => {
  test('resolves once the registry URL answers as the check expects', async () => {
    const server = createServer((_req, res) => {
      res.statusCode = 401;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      await expect(
        new ReadyCheckWait(Ready.http('/v2/', { statuses: [401] }), {
          url: `http://127.0.0.1:${port}`,
        }).waitUntilReady(),
      ).resolves.toBeUndefined();
    } finally {
      server.close();
    }
  });

  test("takes the composite's timeout unless the check carries its own, and fails saying what it awaited", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const w = new ReadyCheckWait(Ready.http('/v2/', { statuses: [401] }), { url });
    expect(w.isStartupTimeoutSet()).toBe(false);
    expect(w.withStartupTimeout(120).getStartupTimeout()).toBe(120);
    await expect(w.waitUntilReady()).rejects.toThrow('HTTP 401 from GET /v2/ did not happen within 120ms');
    expect(
      new ReadyCheckWait(Ready.http('/v2/', { timeoutMs: 50 }), { url }).withStartupTimeout(5000).getStartupTimeout(),
    ).toBe(50);
  });

  test('gives up at once when the container stopped', async () => {
    const t0 = Date.now();
    const w = new ReadyCheckWait(Ready.http('/v2/'), {
      url: `http://127.0.0.1:${await freePort()}`,
      exited: () => 'the registry container stopped (its output ended)',
    });
    await expect(w.withStartupTimeout(10_000).waitUntilReady()).rejects.toThrow(
      'gave up waiting for HTTP 200/401 from GET /v2/: the registry container stopped (its output ended)',
    );
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
