// The client matrix of certify exec-plugin: the good fake plugin passes every
// client check, and each catalogue plugin with `refusedBy` fails exactly the
// client checks it names (and its own caughtBy check), with every client's
// verdict predicted by the client decoding table. Needs all four clients;
// a missing one skips with how to get it, and fails under CI=true.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect } from '@jest/globals';
import type { ExecConfig } from '../../api/exec/types.ts';
import { availableProbes } from '../../clients/index.ts';
import { parseGoDuration } from '../../core/duration.ts';
import { Redactor } from '../../core/redact.ts';
import { InvocationLog } from '../../plugin/invocation.ts';
import type { ExecPlugin } from '../../plugin/client-exec.ts';
import type { CheckResult } from '../../report/model.ts';
import { all, testIf } from '../../testing/prerequisites.ts';
import { killMarked, markedAfter, newMarker, TEST_MARKER_ENV } from '../../testing/processes.ts';
import { certifyExecPlugin } from './certify.ts';
import { clientCheck, type MatrixClient } from './clients.ts';

interface Entry {
  name: string;
  caughtBy: string;
  level: 'MUST' | 'SHOULD';
  apiVersion: string;
  timeout?: string;
  messageIncludes?: string;
  refusedBy?: string[];
}

const FIXTURES = resolve('fixtures');
const entries = (
  JSON.parse(readFileSync(resolve(FIXTURES, 'exec-plugins/catalogue.json'), 'utf8')).plugins as Entry[]
).filter((e) => e.refusedBy);
const probes = await availableProbes();
const clients: MatrixClient[] = probes.flatMap((p) =>
  p.availability.ok ? [{ probe: p.probe, version: p.availability.version }] : [],
);
const it = testIf(
  all(
    ...probes.map((p) =>
      p.availability.ok ? { ok: true } : { ok: false, reason: `${p.probe.name}: ${p.availability.reason}` },
    ),
  ),
);
const parentEnv = { ...process.env, CREDPROV_NODE: process.execPath };
const clientIds = clients.map((c) => clientCheck(c.probe.name).id);

function plugin(command: string, config: Partial<ExecConfig> = {}): ExecPlugin {
  return {
    config: {
      command,
      args: [],
      env: [],
      apiVersion: 'client.authentication.k8s.io/v1',
      interactiveMode: 'Never',
      provideClusterInfo: false,
      ...config,
    },
    baseDir: FIXTURES,
  };
}

async function certify(p: ExecPlugin, timeoutMs: number): Promise<{ checks: CheckResult[]; leftBehind: number[] }> {
  const marker = newMarker();
  try {
    const { checks } = await certifyExecPlugin(p, {
      log: new InvocationLog(undefined, new Redactor()),
      timeoutMs,
      parentEnv: { ...parentEnv, [TEST_MARKER_ENV]: marker },
      redactor: new Redactor(),
      clients,
    });
    return { checks, leftBehind: await markedAfter(marker) };
  } finally {
    killMarked(marker);
  }
}

const clientChecks = (checks: CheckResult[]) => checks.filter((c) => c.id.startsWith('EP-CLIENT-'));

describe('certify exec-plugin --clients: the good fake plugin', () => {
  it("passes every client check, each predicted, and names the client's version in the title", async () => {
    const { checks, leftBehind } = await certify(plugin('fake-exec-plugin/fake-exec-plugin'), 30_000);
    const cs = clientChecks(checks);
    expect(cs.map((c) => [c.id, c.status, c.comparison?.agree])).toEqual(clientIds.map((id) => [id, 'passed', true]));
    for (const c of clients) expect(cs.find((x) => x.id === clientCheck(c.probe.name).id)!.title).toContain(c.version);
    expect(leftBehind).toEqual([]);
  }, 120_000);

  it('skips every client check for interactiveMode Always, saying why', async () => {
    const { checks } = await certify(
      plugin('fake-exec-plugin/fake-exec-plugin', { interactiveMode: 'Always' }),
      30_000,
    );
    expect(clientChecks(checks).map((c) => c.status)).toEqual(clientIds.map(() => 'skipped'));
    expect(clientChecks(checks)[0]!.message).toMatch(/interactiveMode is Always/);
  }, 120_000);
});

/**
 * The timeout of an entry that sets none. Its plugin answers at once, but the test command runs this file beside
 * the end-to-end files and the late builds (load 8–9 on two cores), where 5 s cut a first run short and left the
 * checks of the answer skipped. A daemon that holds stdout is cut at the timeout by design: it keeps 5 s.
 */
const answersAtOnce = (e: Entry) => (e.caughtBy === 'EP-NO-STDOUT-HOLDER' ? 5_000 : 30_000);

describe('certify exec-plugin --clients: the broken catalogue through every client', () => {
  const results = new Map<string, { checks: CheckResult[]; leftBehind: number[] }>();
  beforeAll(async () => {
    if (clients.length < 4) return;
    // Two at a time (each certification starts four clients and a dozen plugin runs, and the machine is
    // shared), the ones that wait out timeouts or a held stdout first, so no long one is left to run alone.
    const waits = (e: Entry) => (e.timeout || e.caughtBy === 'EP-NO-STDOUT-HOLDER' ? 1 : 0);
    const queue = [...entries].sort((a, b) => waits(b) - waits(a));
    await Promise.all(
      [0, 1].map(async () => {
        for (let e = queue.shift(); e; e = queue.shift())
          results.set(
            e.name,
            await certify(
              plugin(`exec-plugins/${e.name}`, { apiVersion: e.apiVersion }),
              e.timeout ? parseGoDuration(e.timeout)! : answersAtOnce(e),
            ),
          );
      }),
    );
  }, 600_000);

  for (const e of entries) {
    it(`${e.name}: ${e.caughtBy} fails; clients refusing it: ${e.refusedBy!.join(', ') || 'none'}, as predicted`, () => {
      const { checks, leftBehind } = results.get(e.name)!;
      const byId = Object.fromEntries(checks.map((c) => [c.id, c]));
      expect(byId[e.caughtBy]?.status).toBe('failed');
      if (e.messageIncludes) expect(byId[e.caughtBy]!.message).toContain(e.messageIncludes);
      const refusing = clientChecks(checks)
        .filter((c) => c.status === 'failed')
        .map((c) => c.id)
        .sort();
      expect(refusing).toEqual(e.refusedBy!.map((n) => clientCheck(n as never).id).sort());
      // Each refusing client's check names the client and what it said; every verdict was predicted.
      for (const c of clientChecks(checks)) {
        expect([c.id, c.comparison?.agree]).toEqual([c.id, true]);
        if (c.status === 'failed')
          expect(c.message).toMatch(
            /^(kubectl|client-go|client-node|python) \S+ (refuses|sent its request without|sent the request, and the API server refused it)/,
          );
        expect(c.message).not.toContain('\n');
      }
      // Only the clients and the defect's own check fail as MUST.
      const failedMust = checks
        .filter((c) => c.status === 'failed' && c.level === 'MUST' && !c.id.startsWith('EP-CLIENT-'))
        .map((c) => c.id);
      expect(failedMust).toEqual(e.caughtBy.startsWith('EP-CLIENT-') || e.level === 'SHOULD' ? [] : [e.caughtBy]);
      expect(leftBehind).toEqual([]);
    });
  }
});
