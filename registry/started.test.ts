// A registry that cannot bind the port it was given says so, with the log
// tail inline, and points to no log file it has already removed.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { CredprovError } from '../src/core/errors.ts';
import { Auth } from './auth.ts';
import { DEFAULT_BINARY, processProvider } from './process.ts';

let held: Server;
let port = 0;

beforeAll(async () => {
  // Connections (a readiness probe) are dropped, so close() does not wait for them.
  held = createServer((s) => s.destroy());
  await new Promise<void>((r) => held.listen(0, '127.0.0.1', () => r()));
  port = (held.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((r) => held.close(r));
});

describe('HarnessRegistry.start on a port in use', () => {
  (existsSync(DEFAULT_BINARY) ? test : test.skip)(
    "names the address in use, inlines the log tail and exits 2 (the port was the caller's choice)",
    async () => {
      const err = await processProvider()
        .start({ name: 'busy-port', auth: Auth.none(), port, hosts: false })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(CredprovError);
      const e = err as CredprovError;
      expect(e.reason).toBe(`starting registry busy-port: 127.0.0.1:${port} is already in use`);
      expect(e.detail).toMatch(/address already in use/);
      expect(e.exitCode).toBe(2);
      // The temp dir and its log are gone: the message must not send anyone there.
      expect(`${e.reason}\n${e.hint ?? ''}`).not.toMatch(/registry\.log/);
    },
    30_000,
  );
});
