import { describe, expect, test } from '@jest/globals';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientProbe, ProbeSession, StartOptions } from '../clients/probe.ts';
import { Redactor } from '../core/redact.ts';
import { ManualClock } from '../core/time.ts';
import { clientNotRun, kubectlAs, runsDuring, startClientSession } from './client-session.ts';

const CHECK = { id: 'X-CLIENT', title: 't', level: 'MUST' as const, source: 's' };
const cluster = { server: 'https://127.0.0.1:6443', caPem: 'PEM', caData: Buffer.from('PEM').toString('base64') };
const exec = {
  command: '/bin/plugin',
  args: [],
  env: [],
  apiVersion: 'client.authentication.k8s.io/v1',
  provideClusterInfo: false,
  interactiveMode: 'Never' as const,
};

/** A client that answers 200 at once and remembers how it was started. */
function fakeProbe(started: Array<{ kubeconfig: string; o: StartOptions }>): ClientProbe {
  let seq = 0;
  const session: ProbeSession = {
    client: 'client-go',
    request: async () => ({ seq: ++seq, status: 200, ms: 0 }),
    log: () => 'klog line with s3cret',
    close: async () => {},
  };
  return {
    name: 'client-go',
    available: async () => ({ ok: true, version: 'v0.37.1' }),
    start: async (target, o) => {
      started.push({ kubeconfig: target.kubeconfig, o });
      return session;
    },
  };
}

describe('a client session', () => {
  test('a client this machine cannot run: not run, with why (a failure under CI); one it can run: undefined', () => {
    const probe = fakeProbe([]);
    const missing = { probe, availability: { ok: false as const, reason: 'no python3' } };
    expect(clientNotRun(CHECK, 'python', missing, false)).toMatchObject({
      status: 'skipped',
      message: 'python is not available here: no python3',
    });
    expect(clientNotRun(CHECK, 'python', missing, true)).toMatchObject({ status: 'failed', cause: 'harness' });
    expect(clientNotRun(CHECK, 'python', undefined, false)?.message).toBe('python is not available here: no probe');
    expect(clientNotRun(CHECK, 'client-go', { probe, availability: { ok: true, version: 'v1' } }, false)).toBe(
      undefined,
    );
  });

  test('the kubeconfig names the user and the exec stanza; steps run on schedule; the log is redacted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-client-session-'));
    try {
      const started: Array<{ kubeconfig: string; o: StartOptions }> = [];
      const redactor = new Redactor().add('s3cret');
      const s = await startClientSession(fakeProbe(started), {
        kubeconfig: join(dir, 'kc.json'),
        cluster,
        exec,
        user: 'unit-user',
        timeoutMs: 1000,
        redactor,
      });
      const kc = JSON.parse(await readFile(started[0]!.kubeconfig, 'utf8')) as {
        users: Array<{ name: string; user: { exec: { command: string } } }>;
      };
      expect(kc.users[0]).toMatchObject({ name: 'unit-user', user: { exec: { command: '/bin/plugin' } } });
      const clock = new ManualClock(10_000);
      let revoked = 0;
      const running = s.runSteps(
        [
          { do: 'request', afterMs: 0 },
          { do: 'revoke', afterMs: 500 },
          { do: 'request', afterMs: 300 },
        ],
        { path: '/api', revoke: () => revoked++, clock },
      );
      await clock.advance(2000);
      const { steps, startedAt } = await running;
      expect(steps.map((x) => [x.do, x.at, x.response?.status])).toEqual([
        ['request', 0, 200],
        ['revoke', 500, undefined],
        ['request', 800, 200],
      ]);
      expect([startedAt, revoked]).toEqual([10_000, 1]);
      expect(s.log()).not.toContain('s3cret');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('each plugin run goes under the request it started during, within 5 ms; the rest are outside', () => {
    const steps = [
      { do: 'request' as const, at: 0, ms: 100 },
      { do: 'revoke' as const, at: 200, ms: 0 },
      { do: 'request' as const, at: 500, ms: 50 },
    ];
    const { during, outside } = runsDuring(steps, 1000, [1003, 1104, 1300, 1552], (t) => t);
    expect(during).toEqual([[1003, 1104], [], [1552]]);
    expect(outside).toEqual([1300]);
  });

  test('kubectl runs in an environment of PATH and HOME alone, kuberc off, and its status is read from -v=6', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-kubectl-as-'));
    try {
      const kubectl = join(dir, 'kubectl');
      await writeFile(
        kubectl,
        '#!/bin/sh\nenv | sort\necho "I1 round_trippers.go] GET https://x/api 401 Unauthorized in 3 milliseconds" >&2\necho "error: You must be logged in" >&2\nexit 1\n',
      );
      await chmod(kubectl, 0o755);
      const a = await kubectlAs(
        { kubectl },
        { kubeconfig: 'kc', user: 'u', args: ['get', 'pods'], home: dir, timeoutMs: 5000 },
      );
      expect(a).toMatchObject({ exitCode: 1, status: 401, kubectlError: 'error: You must be logged in' });
      const vars = a.stdout
        .split('\n')
        .map((l) => l.split('=')[0])
        .filter((v) => v && v !== 'PWD' && v !== 'SHLVL' && v !== '_');
      expect(vars).toEqual(['HOME', 'KUBERC', 'PATH']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
