// credprov registry up with flags a user gets wrong: one line, exit 2, and no
// pointer to a log that is gone by the time the user reads the message.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import { noopLogger } from '../core/logger.ts';
import { runCli, type CliResult } from '../testing/cli.ts';
import { useTempDir } from '../testing/tmp.ts';

const dir = useTempDir('credprov-registry-up-');
let held: Server;
let port = 0;

function credprov(...args: string[]): Promise<CliResult> {
  return runCli(args, { log: noopLogger, cwd: dir(), env: { ...process.env, CREDPROV_STATE_DIR: dir() } });
}

beforeAll(async () => {
  // Connections (a readiness probe) are dropped, so close() does not wait for them.
  held = createServer((s) => s.destroy());
  await new Promise<void>((r) => held.listen(0, '127.0.0.1', () => r()));
  port = (held.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((r) => held.close(r));
});

describe('credprov registry up', () => {
  test('refuses a --host that is not a hostname with exit 2, before starting anything', async () => {
    const r = await credprov('registry', 'up', '--name', 'badhost', '--auth', 'none', '--host', 'bad host!/x');
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      "error: registry up: --host 'bad host!/x' is not a hostname (letters, digits and dashes, in dot-separated labels)",
    );
    expect(r.stderr).not.toContain('starting registry');
  });

  test('says a --port in use is in use, with exit 2, before starting anything', async () => {
    const r = await credprov('registry', 'up', '--name', 'busyport', '--auth', 'none', '--port', String(port));
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`error: registry up: --port ${port}: 127.0.0.1:${port} is already in use`);
    expect(r.stderr).not.toContain('registry.log');
  });
});
