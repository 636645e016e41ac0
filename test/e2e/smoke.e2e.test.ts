// The smoke suite under jest: a real local cluster (etcd, kube-apiserver,
// containerd, kubelet), an htpasswd registry and the fake credential provider.
// Every check must pass; a failing one shows its one-line message.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localProvider } from '../../src/cluster/local/index.ts';
import { Redactor } from '../../src/core/redact.ts';
import { runSuites, type RunOutcome } from '../../src/run/runner.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { smokeSuite } from '../../suites/smoke/index.ts';
import { CONFIG_LOADED, PLUGIN_REQUEST, PRIVATE_PULL, UNMATCHED_FAILS } from '../../suites/smoke/checks.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const available = await localProvider().isAvailable();
const it = testIf(
  all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }),
);
const ENV_NAME = e2eEnvName('smoke');

describe('smoke suite on a local cluster', () => {
  let outcome: RunOutcome | undefined;
  let dir: string | undefined;

  const run = async (): Promise<RunOutcome> => {
    if (outcome) return outcome;
    dir = await mkdtemp(join(tmpdir(), 'credprov-smoke-'));
    outcome = await runSuites([smokeSuite], {
      baseSpec: {
        name: ENV_NAME,
        provider: 'local',
        ...(process.env.CREDPROV_KUBE_BIN_DIR ? { binDir: process.env.CREDPROV_KUBE_BIN_DIR } : {}),
      },
      artifactsDir: dir,
      redactor: new Redactor(),
    });
    return outcome;
  };

  afterAll(async () => {
    // runSuites tears down what it brought up; this covers a run that threw half way.
    await localProvider().down(ENV_NAME);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const expectPassed = async (id: string) => {
    const { report } = await run();
    const result = report.checks.find((c) => c.id === id);
    expect(result ? `${result.status}: ${result.message}` : `${id} did not report`).toMatch(/^passed: /);
  };

  it(
    `${PRIVATE_PULL.id}: a pod whose private image the fake provider matches pulls with its credentials and prints the marker`,
    () => expectPassed(PRIVATE_PULL.id),
    240_000,
  );
  it(
    `${UNMATCHED_FAILS.id}: a pod whose private image no provider matches fails with ErrImagePull or ImagePullBackOff`,
    () => expectPassed(UNMATCHED_FAILS.id),
    240_000,
  );
  it(
    `${PLUGIN_REQUEST.id}: the plugin saw exactly one v1 CredentialProviderRequest, for the repository without tag, without a token`,
    () => expectPassed(PLUGIN_REQUEST.id),
    240_000,
  );
  it(
    `${CONFIG_LOADED.id}: the kubelet's config hash on /metrics is the sha256 of the config credprov wrote`,
    () => expectPassed(CONFIG_LOADED.id),
    240_000,
  );
  it('SMOKE-TEARDOWN: the run tears down the environment it brought up', async () => {
    const { tornDown } = await run();
    expect(tornDown).toBe(true);
  }, 240_000);
});
