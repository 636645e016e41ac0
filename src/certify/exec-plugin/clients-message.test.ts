// A client check's message and its comparison quote the plugin's own answer:
// the value it gave and its defect, never the example a decoding-table row was
// found with. The client here is a stand-in that refuses as client-go does
// (the real clients are run by clients.test.ts); the prediction is credprov's.
import { describe, expect, test } from '@jest/globals';
import type { ClientProbe } from '../../clients/probe.ts';
import type { ExecInvocation, ExecPlugin } from '../../plugin/client-exec.ts';
import { InvocationLog } from '../../plugin/invocation.ts';
import { certifyThroughClients } from './clients.ts';
import type { Observations } from './runs.ts';

const V1 = 'client.authentication.k8s.io/v1';
const plugin: ExecPlugin = {
  config: {
    command: '/bin/true',
    args: [],
    env: [],
    apiVersion: V1,
    interactiveMode: 'Never',
    provideClusterInfo: false,
  },
  baseDir: '/',
};

function observations(stdout: string): Observations {
  const main: ExecInvocation = {
    id: 'main-1',
    protocol: 'client-exec',
    startedAt: new Date().toISOString(),
    durationMs: 3,
    argv: ['/bin/true'],
    envKeys: [],
    request: {},
    stdout,
    stderr: '',
    timedOut: false,
    exitCode: 0,
    configuredApiVersion: V1,
    interactive: false,
  };
  return { plugin, timeoutMs: 5000, main, concurrent: [], byVersion: [], provoked: [], concurrency: 8 };
}

/** Refuses the way client-go refuses an answer it cannot decode: an error, and no request reaches the endpoint. */
const refusingClientGo = (error: string): ClientProbe => ({
  name: 'client-go',
  available: async () => ({ ok: true, version: 'v0.37.1' }),
  start: async () => ({
    client: 'client-go',
    request: async () => ({ seq: 1, error, ms: 1 }),
    log: () => '',
    close: async () => {},
  }),
});

describe('a client check quotes the answer it judged', () => {
  test('an expirationTimestamp without a zone: the message and `because` name "2026-11-29T01:28:26" and "no time zone"', async () => {
    const answer = {
      apiVersion: V1,
      kind: 'ExecCredential',
      status: { token: 'tok', expirationTimestamp: '2026-11-29T01:28:26' },
    };
    const { checks } = await certifyThroughClients(plugin, observations(JSON.stringify(answer)), {
      clients: [
        {
          probe: refusingClientGo(
            'Get "https://127.0.0.1/version": getting credentials: decoding stdout: parsing time "2026-11-29T01:28:26" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"',
          ),
          version: 'v0.37.1',
        },
      ],
      log: new InvocationLog(),
      timeoutMs: 5000,
    });
    const c = checks[0]!;
    expect(c.status).toBe('failed');
    expect(c.comparison).toMatchObject({ predicted: 'refuses', observed: 'refuses', agree: true });
    for (const text of [c.message, c.comparison!.because]) {
      expect(text).toContain('expirationTimestamp is "2026-11-29T01:28:26" (no time zone');
      expect(text).not.toContain('2030-01-02');
    }
  });
});
