// The cache suite under jest: a real local cluster (etcd, kube-apiserver,
// containerd, kubelet v1.37.1), two lab registries and a fleet of recording
// fake providers. Every check (the cache model's prediction vs what the
// kubelet did) must pass; a failing one shows its one-line message.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localProvider } from '../../src/cluster/local/index.ts';
import { Redactor } from '../../src/core/redact.ts';
import { runSuites, type RunOutcome } from '../../src/run/runner.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { cacheSuite } from '../../suites/cache/index.ts';
import { CACHE_CHECKS } from '../../suites/cache/checks.ts';

const available = await localProvider().isAvailable();
const it = testIf(all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }));
const ENV_NAME = 'e2e-cache';
const TIMEOUT_MS = 300_000;

describe('cache suite on a local cluster', () => {
  let outcome: Promise<RunOutcome> | undefined;
  let dir: string | undefined;

  // One run for every test: the first test to ask starts it, the others wait for it.
  const run = (): Promise<RunOutcome> => (outcome ??= (async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-cache-'));
    return runSuites([cacheSuite], {
      baseSpec: { name: ENV_NAME, provider: 'local', ...(process.env.CREDPROV_KUBE_BIN_DIR ? { binDir: process.env.CREDPROV_KUBE_BIN_DIR } : {}) },
      artifactsDir: dir,
      redactor: new Redactor(),
    });
  })());

  afterAll(async () => {
    // runSuites tears down what it brought up; this covers a run that threw half way.
    await localProvider().down(ENV_NAME);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, TIMEOUT_MS);

  it('CACHE: every check of the suite passed on the real kubelet', async () => {
    const { report } = await run();
    const notPassed = report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}${c.cause ? ` (${c.cause})` : ''}: ${c.message}`);
    expect(notPassed).toEqual([]);
    expect(report.checks.map((c) => c.id).sort()).toEqual(CACHE_CHECKS.map((c) => c.id).sort());
  }, TIMEOUT_MS);

  for (const check of CACHE_CHECKS) {
    it(`${check.id}: ${check.title}`, async () => {
      const { report } = await run();
      const result = report.checks.find((c) => c.id === check.id);
      expect(result ? `${result.status}: ${result.message}` : `${check.id} did not report`).toMatch(/^passed: /);
    }, TIMEOUT_MS);
  }

  it('CACHE-TEARDOWN: the run tears down the environment it brought up', async () => {
    const { tornDown } = await run();
    expect(tornDown).toBe(true);
  }, TIMEOUT_MS);
});
