// The cache suite under jest: a real local cluster (etcd, kube-apiserver,
// containerd, kubelet v1.37.1), two lab registries and a fleet of recording
// fake providers. Every check (the cache model's prediction vs what the
// kubelet did) must pass; a failing one shows its one-line message.
import { describe, expect } from '@jest/globals';
import { notPassed, sortedIds, suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { cacheSuite } from '../../suites/cache/index.ts';
import { CACHE_CHECKS } from '../../suites/cache/checks.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const TIMEOUT_MS = 300_000;
const { it, run, verdict } = await suiteOnLocalCluster(cacheSuite, { envName: e2eEnvName('cache') });

describe('cache suite on a local cluster', () => {
  it(
    'CACHE: every check of the suite passed on the real kubelet',
    async () => {
      const { report } = await run();
      expect(notPassed(report.checks)).toEqual([]);
      expect(sortedIds(report.checks)).toEqual(sortedIds(CACHE_CHECKS));
    },
    TIMEOUT_MS,
  );

  for (const check of CACHE_CHECKS) {
    it(
      `${check.id}: ${check.title}`,
      async () => {
        expect(await verdict(check.id)).toMatch(/^passed: /);
      },
      TIMEOUT_MS,
    );
  }

  it(
    'CACHE-TEARDOWN: the run tears down the environment it brought up',
    async () => {
      const { tornDown } = await run();
      expect(tornDown).toBe(true);
    },
    TIMEOUT_MS,
  );
});
