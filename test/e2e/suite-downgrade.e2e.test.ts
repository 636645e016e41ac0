// The downgrade suite on a real local cluster: every rollback path behaves as
// credprov predicts, and the node config.json it writes is gone afterwards.
import { afterAll, describe, expect } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localProvider } from '../../src/cluster/local/index.ts';
import { layoutFor } from '../../src/cluster/local/layout.ts';
import { Redactor } from '../../src/core/redact.ts';
import { runSuites, type RunOutcome } from '../../src/run/runner.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { DOWNGRADE_CHECKS } from '../../suites/downgrade/checks.ts';
import { downgradeSuite } from '../../suites/downgrade/index.ts';

const available = await localProvider().isAvailable();
const it = testIf(all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }));
const ENV_NAME = 'e2e-downgrade';

describe('downgrade suite on a local cluster', () => {
  let outcome: RunOutcome | undefined;
  let dir: string | undefined;
  const run = async (): Promise<RunOutcome> => {
    if (outcome) return outcome;
    dir = await mkdtemp(join(tmpdir(), 'credprov-downgrade-'));
    outcome = await runSuites([downgradeSuite], { baseSpec: { name: ENV_NAME, provider: 'local' }, artifactsDir: dir, redactor: new Redactor(), keep: true });
    return outcome;
  };
  afterAll(async () => {
    await localProvider().down(ENV_NAME);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  for (const check of DOWNGRADE_CHECKS) {
    it(`${check.id}: the kubelet agrees with credprov's prediction`, async () => {
      const r = (await run()).report.checks.find((c) => c.id === check.id);
      expect(r ? `${r.status}: ${r.message}` : `${check.id} did not report`).toMatch(/^passed: /);
    }, 600_000);
  }

  it('DOWN-CLEANUP: the node config.json written for the fallback case is removed', async () => {
    await run();
    expect(existsSync(join(layoutFor(ENV_NAME).kubeletRoot, 'config.json'))).toBe(false);
  }, 600_000);
});
