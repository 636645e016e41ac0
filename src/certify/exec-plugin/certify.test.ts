// Integration: certifies the good fake exec plugin (every check passes) and
// every plugin in the broken catalogue (the check named in catalogue.json
// fails, and no other MUST check does: one defect, one verdict).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { loadKubeconfigExecUser } from '../../api/exec/kubeconfig.ts';
import type { ExecConfig } from '../../api/exec/types.ts';
import { parseGoDuration } from '../../core/duration.ts';
import { Redactor } from '../../core/redact.ts';
import { InvocationLog } from '../../plugin/invocation.ts';
import type { ExecPlugin } from '../../plugin/client-exec.ts';
import type { CheckResult } from '../../report/model.ts';
import { killMarked, markedAfter, newMarker, TEST_MARKER_ENV } from '../../testing/processes.ts';
import { certifyExecPlugin } from './certify.ts';

interface CatalogueEntry {
  name: string;
  defect: string;
  caughtBy: string;
  level: 'MUST' | 'SHOULD';
  apiVersion: string;
  timeout?: string;
  messageIncludes?: string;
}

const FIXTURES = resolve('fixtures');
// Plugins only a real client refuses are caught with --clients (clients.test.ts), not by credprov's own runs.
const catalogue = (
  JSON.parse(readFileSync(resolve(FIXTURES, 'exec-plugins/catalogue.json'), 'utf8')).plugins as CatalogueEntry[]
).filter((e) => !e.caughtBy.startsWith('EP-CLIENT-'));
// The fixtures' #!/bin/sh wrappers run Node from PATH unless told which one.
const parentEnv = { ...process.env, CREDPROV_NODE: process.execPath };

function commandPlugin(command: string, config: Partial<ExecConfig> = {}): ExecPlugin {
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

async function certify(
  plugin: ExecPlugin,
  timeoutMs = 30_000,
): Promise<{ checks: CheckResult[]; log: InvocationLog; leftBehind: number[] }> {
  const log = new InvocationLog(undefined, new Redactor());
  // Every process the plugin starts inherits the marker, setsid or not: none may outlive the certification.
  const marker = newMarker();
  try {
    const { checks } = await certifyExecPlugin(plugin, {
      log,
      timeoutMs,
      parentEnv: { ...parentEnv, [TEST_MARKER_ENV]: marker },
      redactor: new Redactor(),
    });
    return { checks, log, leftBehind: await markedAfter(marker) };
  } finally {
    killMarked(marker);
  }
}

/** Runs the certifications a few at a time: each spawns ~14 Node processes and the machine is shared. */
async function pool<T, R>(items: T[], width: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!);
      }
    }),
  );
  return results;
}

const byId = (checks: CheckResult[]) => Object.fromEntries(checks.map((c) => [c.id, c]));
const failedMust = (checks: CheckResult[]) =>
  checks.filter((c) => c.status === 'failed' && c.level === 'MUST').map((c) => c.id);

describe('certify exec-plugin: the good fake plugin', () => {
  let token: CheckResult[];
  let certAndToken: CheckResult[];
  let viaKubeconfig: CheckResult[];
  let always: CheckResult[];
  let tokenLog: InvocationLog;

  beforeAll(async () => {
    const fake = 'fake-exec-plugin/fake-exec-plugin';
    const kc = await loadKubeconfigExecUser(resolve(FIXTURES, 'kubeconfigs/valid-v1.yaml'));
    const runs = await pool(
      [
        commandPlugin(fake),
        commandPlugin(fake, {
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          args: ['--scenario', '{"credential":"both"}'],
        }),
        { config: kc.config, baseDir: kc.baseDir, ...(kc.cluster ? { cluster: kc.cluster } : {}) },
        commandPlugin(fake, { interactiveMode: 'Always' }),
      ],
      2,
      (p) => certify(p),
    );
    [token, certAndToken, viaKubeconfig, always] = runs.map((r) => r.checks) as [
      CheckResult[],
      CheckResult[],
      CheckResult[],
      CheckResult[],
    ];
    tokenLog = runs[0]!.log;
  }, 180_000);

  test('passes every check with a token, skipping only the certificate check', () => {
    expect(token.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([
      'EP-CERT-VALID: the plugin returns no client certificate',
    ]);
  });

  test('passes every check, the certificate check included, with a token and a client certificate on v1beta1', () => {
    expect(certAndToken.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
  });

  test('passes every check when run from a kubeconfig with provideClusterInfo', () => {
    expect(viaKubeconfig.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.message}`)).toEqual([]);
  });

  test('skips the non-interactive probe for an Always plugin and passes the rest', () => {
    expect(byId(always)['EP-NONINTERACTIVE-NO-BLOCK']?.status).toBe('skipped');
    expect(failedMust(always)).toEqual([]);
  });

  test('runs the plugin 14 times: 2 in sequence, 8 at once, a stdin probe, the other version, 2 provocations', () => {
    expect(tokenLog.records).toHaveLength(14);
    expect(tokenLog.records.every((r) => r.protocol === 'client-exec')).toBe(true);
  });
});

describe('certify exec-plugin: the broken catalogue', () => {
  const results = new Map<string, CheckResult[]>();
  const leftBehind = new Map<string, number[]>();

  beforeAll(async () => {
    const all = await pool(catalogue, 3, (e) =>
      certify(
        commandPlugin(`exec-plugins/${e.name}`, { apiVersion: e.apiVersion }),
        e.timeout ? parseGoDuration(e.timeout)! : 30_000,
      ),
    );
    catalogue.forEach((e, i) => {
      results.set(e.name, all[i]!.checks);
      leftBehind.set(e.name, all[i]!.leftBehind);
    });
  }, 300_000);

  test('holds at least 8 broken plugins, each naming a known check', () => {
    expect(catalogue.length).toBeGreaterThanOrEqual(8);
  });

  test.each(catalogue.map((e) => [e.name, e.caughtBy, e] as const))('%s is caught by %s', (name, caughtBy, entry) => {
    const checks = results.get(name)!;
    const named = byId(checks)[caughtBy];
    expect(named).toBeDefined();
    expect(named!.level).toBe(entry.level);
    expect({ status: named!.status, message: named!.message }).toMatchObject({ status: 'failed' });
    expect(named!.message).not.toContain('\n');
    if (entry.messageIncludes) expect(named!.message).toContain(entry.messageIncludes);
    expect(named!.evidence.length).toBeGreaterThan(0);
    // One defect, one verdict: no other MUST check fails because of it.
    expect(failedMust(checks)).toEqual(entry.level === 'MUST' ? [caughtBy] : []);
    expect(leftBehind.get(name)).toEqual([]);
  });
});
