// The ensure-secret-pulled-images suite on a real local cluster: every cell of
// the KEP-2535 matrix, and the records, metrics, restart and pruning checks,
// must agree with the model (src/model/ensure-secret-pulled.ts).
import { describe, expect } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redactor } from '../../src/core/redact.ts';
import { writeReports } from '../../src/report/write.ts';
import { suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { ESPI_CHECKS } from '../../suites/ensure-secret-pulled-images/checks.ts';
import { ensureSecretPulledImagesSuite } from '../../suites/ensure-secret-pulled-images/index.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const { it, run, dir, verdict, result } = await suiteOnLocalCluster(ensureSecretPulledImagesSuite, {
  envName: e2eEnvName('espi'),
  keep: true,
});

describe('ensure-secret-pulled-images suite on a local cluster', () => {
  for (const check of ESPI_CHECKS) {
    it(`${check.id}: the kubelet agrees with the KEP-2535 model`, async () => {
      expect(await verdict(check.id)).toMatch(/^passed: /);
      expect((await result(check.id))?.comparison?.agree).toBe(true);
    }, 600_000);
  }

  it("ESPI-REPORT: report.md shows each policy's matrix as a table", async () => {
    const { report } = await run();
    const out = join(dir(), 'report');
    await writeReports(report, out, new Redactor());
    const md = await readFile(join(out, 'report.md'), 'utf8');
    for (const id of [
      'ESPI-MATRIX-NEVERVERIFY',
      'ESPI-MATRIX-NEVERVERIFYPRELOADED',
      'ESPI-MATRIX-ALLOWLISTED',
      'ESPI-MATRIX-ALWAYSVERIFY',
    ]) {
      expect(md).toContain(`### ${id}: matrix (PASS)`);
    }
    expect(md).toMatch(
      /\| Never\/wrong-secret\/kubelet \| ErrImageNeverPull \| ErrImageNeverPull \| mustAuthenticate \|/,
    );
    expect(report.suites?.[0]?.durationMs).toBeGreaterThan(0);
  }, 600_000);
});
