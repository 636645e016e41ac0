// The provider-config-directory suite on a real local cluster (the default
// v1.37.1): the kubelet restarted on a config directory merges it in lexical
// order (exec and login order of one pull), publishes the hash credprov
// computes over its files, and refuses a repeated provider name and an empty
// directory with the errors credprov's load model predicts; the environment
// keeps working after the refused starts.
import { describe, expect } from '@jest/globals';
import { suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { CFGDIR_CHECKS } from '../../suites/provider-config-directory/checks.ts';
import { providerConfigDirectorySuite } from '../../suites/provider-config-directory/index.ts';

const TIMEOUT_MS = 400_000;
const { it, verdict, result } = await suiteOnLocalCluster(providerConfigDirectorySuite, {
  envName: e2eEnvName('cfgdir'),
});

describe('provider-config-directory suite on a local cluster', () => {
  for (const check of CFGDIR_CHECKS) {
    it(
      `${check.id}: the kubelet agrees with credprov's config load model`,
      async () => {
        expect(await verdict(check.id)).toMatch(/^passed: /);
        expect((await result(check.id))?.comparison?.agree).toBe(true);
      },
      TIMEOUT_MS,
    );
  }
});
