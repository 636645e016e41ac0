// The service-account-token suite (KEP-4412) on a real local cluster: every
// case's prediction (service-account-token model + version table) must agree
// with the kubelet and the API server.
import { describe, expect } from '@jest/globals';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { SA_TOKEN_CHECKS, TOKEN_OTHER_NODE } from '../../suites/service-account-token/checks.ts';
import { serviceAccountTokenSuite } from '../../suites/service-account-token/index.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const { it, run, dir, verdict, result } = await suiteOnLocalCluster(serviceAccountTokenSuite, {
  envName: e2eEnvName('sa'),
  keep: true,
});

describe('service-account-token suite on a local cluster', () => {
  // The local provider has one node: the two-node check says so, skipped even under CI=true (secondNode is a
  // shape of the environment, not a prerequisite). It runs on kind with a worker (test/e2e/kind.e2e.test.ts).
  it(`${TOKEN_OTHER_NODE.id}: not run on one node, with the capability it needs as the reason`, async () => {
    expect(await verdict(TOKEN_OTHER_NODE.id)).toMatch(
      /^skipped: needs what provider local cannot do: secondNode \(run a second node with its own kubelet identity\)$/,
    );
  }, 420_000);

  for (const check of SA_TOKEN_CHECKS.filter((c) => c !== TOKEN_OTHER_NODE)) {
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
