// The vendor-ecr suite under jest: the real ecr-credential-provider (built
// unmodified from the Go module proxy on first use) under a real kubelet
// v1.37.1, against fake ECR/STS on loopback. Every check (credprov's
// prediction vs what the kubelet and the plugin did) must pass.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localProvider } from '../../src/cluster/local/index.ts';
import { Redactor } from '../../src/core/redact.ts';
import { runSuites, type RunOutcome } from '../../src/run/runner.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { vendorEcrSuite } from '../../suites/vendor-ecr/index.ts';
import { VENDOR_ECR_CHECKS } from '../../suites/vendor-ecr/checks.ts';

const available = await localProvider().isAvailable();
const it = testIf(all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }));
const ENV_NAME = 'e2e-ecr';
// A cold cache builds the plugin first (about a minute with a warm Go build cache, several on a cold one).
const TIMEOUT_MS = 900_000;

describe('vendor-ecr suite on a local cluster', () => {
  let outcome: Promise<RunOutcome> | undefined;
  let dir: string | undefined;

  const run = (): Promise<RunOutcome> => (outcome ??= (async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-ecr-'));
    return runSuites([vendorEcrSuite], {
      baseSpec: { name: ENV_NAME, provider: 'local', ...(process.env.CREDPROV_KUBE_BIN_DIR ? { binDir: process.env.CREDPROV_KUBE_BIN_DIR } : {}) },
      artifactsDir: dir,
      redactor: new Redactor(),
    });
  })());

  afterAll(async () => {
    // runSuites tears down what it brought up; this covers a run that threw half way.
    await localProvider().down(ENV_NAME);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('ECR: every check of the suite passed on the real kubelet and plugin', async () => {
    const { report } = await run();
    const notPassed = report.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}${c.cause ? ` (${c.cause})` : ''}: ${c.message}`);
    expect(notPassed).toEqual([]);
    expect(report.checks.map((c) => c.id).sort()).toEqual(VENDOR_ECR_CHECKS.map((c) => c.id).sort());
  }, TIMEOUT_MS);

  for (const check of VENDOR_ECR_CHECKS) {
    it(`${check.id}: ${check.title}`, async () => {
      const { report } = await run();
      const result = report.checks.find((c) => c.id === check.id);
      expect(result ? `${result.status}: ${result.message}` : `${check.id} did not report`).toMatch(/^passed: /);
    }, TIMEOUT_MS);
  }

  it('ECR-SECRETS: no AWS secret, registry password or service-account token reaches the report', async () => {
    const { report } = await run();
    const text = JSON.stringify(report);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./);
    expect(text).not.toMatch(/"password":"(?!<redacted>)/);
    // …and nothing that is not a secret is hidden: the evidence keeps accounts, roles and token claims readable.
    expect(text).toContain('111122223333.dkr.ecr.us-east-1.amazonaws.com');
    expect(text).toMatch(/"sub":"system:serviceaccount:default:ecr-puller-/);
  }, TIMEOUT_MS);

  it('ECR-TEARDOWN: the run tears down the environment it brought up', async () => {
    const { tornDown } = await run();
    expect(tornDown).toBe(true);
  }, TIMEOUT_MS);
});
