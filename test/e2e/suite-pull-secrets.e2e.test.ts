// The pull-secrets suite under jest: a real local cluster (etcd,
// kube-apiserver with ServiceAccount admission, controller-manager, containerd,
// kubelet), an htpasswd registry and one fake credential provider. Every check
// must pass; a failing one shows its message (prediction and observation).
import { describe, expect } from '@jest/globals';
import { notPassed, sortedIds, suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { pullSecretsSuite } from '../../suites/pull-secrets/index.ts';
import { PULL_SECRETS_CHECKS } from '../../suites/pull-secrets/checks.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const TIMEOUT_MS = 300_000;
const { it, run, verdict } = await suiteOnLocalCluster(pullSecretsSuite, { envName: e2eEnvName('secrets') });

describe('pull-secrets suite on a local cluster', () => {
  it(
    'every check of the suite passed',
    async () => {
      const { report } = await run();
      expect(notPassed(report.checks)).toEqual([]);
      expect(sortedIds(report.checks)).toEqual(sortedIds(PULL_SECRETS_CHECKS));
    },
    TIMEOUT_MS,
  );

  for (const check of PULL_SECRETS_CHECKS) {
    it(
      `${check.id}: ${check.title}`,
      async () => {
        expect(await verdict(check.id)).toMatch(/^passed: /);
      },
      TIMEOUT_MS,
    );
  }

  it(
    'SECRETS-TEARDOWN: the run tears down the environment it brought up',
    async () => {
      const { tornDown } = await run();
      expect(tornDown).toBe(true);
    },
    TIMEOUT_MS,
  );
});
