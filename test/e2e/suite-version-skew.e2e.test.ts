// The version-skew suite on a real local cluster: the kubelet of every older
// minor the skew policy allows (scripts/test.sh builds them) under the default
// API server; every check must pass, and under CI=true a minor whose kubelet
// is missing fails instead of being skipped. The minors the policy rules out
// under that API server are skipped as not applicable.
import { describe, expect } from '@jest/globals';
import { inCI } from '../../src/testing/prerequisites.ts';
import { skewProblem } from '../../src/versions/skew.ts';
import { DEFAULT_KUBE_VERSION, parseKubeVersion } from '../../src/versions/table.ts';
import { suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { VERSION_SKEW_CHECKS } from '../../suites/version-skew/checks.ts';
import { versionSkewSuite } from '../../suites/version-skew/index.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const { it, verdict } = await suiteOnLocalCluster(versionSkewSuite, { envName: e2eEnvName('skew') });

describe('version-skew suite on a local cluster', () => {
  for (const check of VERSION_SKEW_CHECKS) {
    const minor = /^SKEW-(1\.\d+)-/.exec(check.id)![1]!;
    // The suite asks the skew policy by minors (1.37 under 1.38), and says so in the reason.
    const outOfPolicy = skewProblem(`1.${parseKubeVersion(DEFAULT_KUBE_VERSION).minor}`, minor);
    it(`${check.id}: ${outOfPolicy ? 'not applicable under the default API server' : "the kubelet agrees with credprov's prediction"}`, async () => {
      if (outOfPolicy) {
        expect(await verdict(check.id)).toBe(`skipped: not applicable here: ${outOfPolicy}`);
        return;
      }
      // A minor whose kubelet is not built is a skip outside CI; in CI the test command built it, so it must pass.
      expect(await verdict(check.id)).toMatch(inCI() ? /^passed: / : /^(passed|skipped): /);
    }, 600_000);
  }
});
