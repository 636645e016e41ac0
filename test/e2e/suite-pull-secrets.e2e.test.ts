// The pull-secrets suite under jest: a real local cluster (etcd,
// kube-apiserver with ServiceAccount admission, controller-manager, containerd,
// kubelet), an htpasswd registry and one fake credential provider. Every check
// must pass; a failing one shows its message (prediction and observation).
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localProvider } from '../../src/cluster/local/index.ts';
import { Redactor } from '../../src/core/redact.ts';
import { runSuites, type RunOutcome } from '../../src/run/runner.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { pullSecretsSuite } from '../../suites/pull-secrets/index.ts';
import { PULL_SECRETS_CHECKS } from '../../suites/pull-secrets/checks.ts';

const available = await localProvider().isAvailable();
const it = testIf(all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }));
const ENV_NAME = 'e2e-secrets';
const TIMEOUT_MS = 300_000;

describe('pull-secrets suite on a local cluster', () => {
  let outcome: Promise<RunOutcome> | undefined;
  let dir: string | undefined;

  const run = (): Promise<RunOutcome> => {
    outcome ??= (async () => {
      dir = await mkdtemp(join(tmpdir(), 'credprov-secrets-'));
      return runSuites([pullSecretsSuite], {
        baseSpec: { name: ENV_NAME, provider: 'local', ...(process.env.CREDPROV_KUBE_BIN_DIR ? { binDir: process.env.CREDPROV_KUBE_BIN_DIR } : {}) },
        artifactsDir: dir,
        redactor: new Redactor(),
      });
    })();
    return outcome;
  };

  afterAll(async () => {
    // runSuites tears down what it brought up; this covers a run that threw half way.
    await localProvider().down(ENV_NAME);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, TIMEOUT_MS);

  it('every check of the suite passed', async () => {
    const { report } = await run();
    const failing = report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}: ${c.message}`);
    expect(failing).toEqual([]);
    expect(report.checks.map((c) => c.id).sort()).toEqual(PULL_SECRETS_CHECKS.map((c) => c.id).sort());
  }, TIMEOUT_MS);

  for (const check of PULL_SECRETS_CHECKS) {
    it(`${check.id}: ${check.title}`, async () => {
      const { report } = await run();
      const result = report.checks.find((c) => c.id === check.id);
      expect(result ? `${result.status}: ${result.message}` : `${check.id} did not report`).toMatch(/^passed: /);
    }, TIMEOUT_MS);
  }

  it('SECRETS-TEARDOWN: the run tears down the environment it brought up', async () => {
    const { tornDown } = await run();
    expect(tornDown).toBe(true);
  }, TIMEOUT_MS);
});
