// The counts a report gives agree: the runs the checks speak of are the
// invocations the metrics count, the run made as client-node makes it
// included (15 with client-node among the clients, 14 without).
import { describe, expect, test } from '@jest/globals';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { V1 } from '../../api/exec/types.ts';
import type { ClientProbe } from '../../clients/probe.ts';
import type { ExecPlugin } from '../../plugin/client-exec.ts';
import { InvocationLog } from '../../plugin/invocation.ts';
import { useTempDir } from '../../testing/tmp.ts';
import { certifyExecPlugin } from './certify.ts';

const tmp = useTempDir('credprov-counts-');

const clientNode: ClientProbe = {
  name: 'client-node',
  available: async () => ({ ok: true, version: 'test' }),
  start: async () => ({
    client: 'client-node',
    request: async () => ({ seq: 1, error: 'a stand-in: no request sent', ms: 1 }),
    log: () => '',
    close: async () => {},
  }),
};

async function plugin(): Promise<ExecPlugin> {
  const file = join(tmp(), 'plugin');
  const answer = JSON.stringify({
    apiVersion: V1,
    kind: 'ExecCredential',
    status: { token: 'tok-0123456789', expirationTimestamp: '2099-01-01T00:00:00Z' },
  });
  await writeFile(file, `#!/bin/sh\nprintf '%s\\n' '${answer}'\n`);
  await chmod(file, 0o755);
  return {
    config: { command: file, args: [], env: [], apiVersion: V1, interactiveMode: 'Never', provideClusterInfo: false },
    baseDir: tmp(),
  };
}

describe('the number of runs is one number', () => {
  test.each([
    ['without client-node', [], 14],
    ['with client-node', [clientNode], 15],
  ] as const)('%s: metrics.invocations and every "N runs" agree', async (_, clients, runs) => {
    const log = new InvocationLog();
    const { checks, metrics } = await certifyExecPlugin(await plugin(), {
      log,
      timeoutMs: 10_000,
      clients: clients.map((probe) => ({ probe, version: 'test' })),
    });
    expect(metrics.invocations).toBe(runs);
    const said = checks.flatMap((c) =>
      [...c.message.matchAll(/(?:all|of|any of the) (\d+) runs/g)].map((m) => Number(m[1])),
    );
    expect(said.length).toBeGreaterThanOrEqual(3);
    expect(new Set(said)).toEqual(new Set([runs]));
  });
});
