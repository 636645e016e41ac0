// The service-account-token suite (KEP-4412) on a real local cluster: every
// case's prediction (service-account-token model + version table) must agree
// with the kubelet and the API server.
import { describe, expect } from '@jest/globals';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { SA_TOKEN_CHECKS } from '../../suites/service-account-token/checks.ts';
import { serviceAccountTokenSuite } from '../../suites/service-account-token/index.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const { it, run, dir, verdict, result } = await suiteOnLocalCluster(serviceAccountTokenSuite, {
  envName: e2eEnvName('sa'),
  keep: true,
});

describe('service-account-token suite on a local cluster', () => {
  // SA-TOKEN-OTHER-NODE among them: the local provider's second node is a kubelet of its own.
  for (const check of SA_TOKEN_CHECKS) {
    it(`${check.id}: the kubelet agrees with the model`, async () => {
      expect(await verdict(check.id)).toMatch(/^passed: /);
      expect((await result(check.id))?.comparison?.agree).toBe(true);
    }, 420_000);
  }

  it('SA-REPORT: the checks sit under the suite; no service-account token reaches the report or the artifacts', async () => {
    const { report } = await run();
    expect(report.suites?.map((s) => s.name)).toEqual(['service-account-token']);
    expect(report.checks.every((c) => c.suite === 'service-account-token')).toBe(true);
    expect(JSON.stringify(report)).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./);
    const suiteDir = join(dir(), 'service-account-token');
    const files = (await readdir(suiteDir, { recursive: true })).map(String);
    for (const f of files.filter((x) => /\.(log|jsonl?|json)$/.test(x))) {
      const text = await readFile(join(suiteDir, f), 'utf8');
      expect({ file: f, jwt: /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/.test(text) }).toEqual({
        file: f,
        jwt: false,
      });
    }
  }, 420_000);
});
