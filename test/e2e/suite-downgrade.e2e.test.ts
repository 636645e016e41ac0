// The downgrade suite on a real local cluster: every rollback path behaves as
// credprov predicts, and the node config.json it writes is gone afterwards.
import { describe, expect } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { layoutFor } from '../../src/cluster/local/layout.ts';
import { suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { DOWNGRADE_CHECKS } from '../../suites/downgrade/checks.ts';
import { downgradeSuite } from '../../suites/downgrade/index.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const ENV_NAME = e2eEnvName('downgrade');
const { it, run, verdict } = await suiteOnLocalCluster(downgradeSuite, { envName: ENV_NAME, keep: true });

describe('downgrade suite on a local cluster', () => {
  for (const check of DOWNGRADE_CHECKS) {
    it(`${check.id}: the kubelet agrees with credprov's prediction`, async () => {
      expect(await verdict(check.id)).toMatch(/^passed: /);
    }, 600_000);
  }

  it('DOWN-CLEANUP: the node config.json written for the fallback case is removed', async () => {
    await run();
    expect(existsSync(join(layoutFor(ENV_NAME).kubeletRoot, 'config.json'))).toBe(false);
  }, 600_000);
});
