// The ensure-secret-pulled-images suite on a real local cluster: every cell of
// the KEP-2535 matrix, and the records, metrics, restart and pruning checks,
// must agree with the model (src/model/ensure-secret-pulled.ts).
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localProvider } from '../../src/cluster/local/index.ts';
import { Redactor } from '../../src/core/redact.ts';
import { writeReports } from '../../src/report/write.ts';
import { runSuites, type RunOutcome } from '../../src/run/runner.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { ESPI_CHECKS } from '../../suites/ensure-secret-pulled-images/checks.ts';
import { ensureSecretPulledImagesSuite } from '../../suites/ensure-secret-pulled-images/index.ts';

const available = await localProvider().isAvailable();
const it = testIf(all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }));
const ENV_NAME = 'e2e-espi';

describe('ensure-secret-pulled-images suite on a local cluster', () => {
  let outcome: RunOutcome | undefined;
  let dir: string | undefined;
  const run = async (): Promise<RunOutcome> => {
    if (outcome) return outcome;
    dir = await mkdtemp(join(tmpdir(), 'credprov-espi-'));
    outcome = await runSuites([ensureSecretPulledImagesSuite], { baseSpec: { name: ENV_NAME, provider: 'local' }, artifactsDir: dir, redactor: new Redactor(), keep: true });
    return outcome;
  };
  afterAll(async () => {
    await localProvider().down(ENV_NAME);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  for (const check of ESPI_CHECKS) {
    it(`${check.id}: the kubelet agrees with the KEP-2535 model`, async () => {
      const r = (await run()).report.checks.find((c) => c.id === check.id);
      expect(r ? `${r.status}: ${r.message}` : `${check.id} did not report`).toMatch(/^passed: /);
      expect(r?.comparison?.agree).toBe(true);
    }, 600_000);
  }

  it('ESPI-REPORT: report.md shows each policy\'s matrix as a table', async () => {
    const { report } = await run();
    const out = join(dir!, 'report');
    await writeReports(report, out, new Redactor());
    const md = await readFile(join(out, 'report.md'), 'utf8');
    for (const id of ['ESPI-MATRIX-NEVERVERIFY', 'ESPI-MATRIX-NEVERVERIFYPRELOADED', 'ESPI-MATRIX-ALLOWLISTED', 'ESPI-MATRIX-ALWAYSVERIFY']) {
      expect(md).toContain(`### ${id}: matrix (PASS)`);
    }
    expect(md).toMatch(/\| Never\/wrong-secret\/kubelet \| ErrImageNeverPull \| ErrImageNeverPull \| mustAuthenticate \|/);
    expect(report.suites?.[0]?.durationMs).toBeGreaterThan(0);
  }, 600_000);
});
