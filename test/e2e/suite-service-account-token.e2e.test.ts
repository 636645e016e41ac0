// The service-account-token suite (KEP-4412) on a real local cluster: every
// case's prediction (service-account-token model + version table) must agree
// with the kubelet and the API server.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localProvider } from '../../src/cluster/local/index.ts';
import { Redactor } from '../../src/core/redact.ts';
import { runSuites, type RunOutcome } from '../../src/run/runner.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { SA_TOKEN_CHECKS } from '../../suites/service-account-token/checks.ts';
import { serviceAccountTokenSuite } from '../../suites/service-account-token/index.ts';

const available = await localProvider().isAvailable();
const it = testIf(all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }));
const ENV_NAME = 'e2e-sa';

describe('service-account-token suite on a local cluster', () => {
  let outcome: RunOutcome | undefined;
  let dir: string | undefined;
  const run = async (): Promise<RunOutcome> => {
    if (outcome) return outcome;
    dir = await mkdtemp(join(tmpdir(), 'credprov-sa-'));
    outcome = await runSuites([serviceAccountTokenSuite], { baseSpec: { name: ENV_NAME, provider: 'local' }, artifactsDir: dir, redactor: new Redactor(), keep: true });
    return outcome;
  };
  afterAll(async () => {
    await localProvider().down(ENV_NAME);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  for (const check of SA_TOKEN_CHECKS) {
    it(`${check.id}: the kubelet agrees with the model`, async () => {
      const r = (await run()).report.checks.find((c) => c.id === check.id);
      expect(r ? `${r.status}: ${r.message}` : `${check.id} did not report`).toMatch(/^passed: /);
      expect(r?.comparison?.agree).toBe(true);
    }, 420_000);
  }

  it('SA-REPORT: the checks sit under the suite; no service-account token reaches the report or the artifacts', async () => {
    const { report } = await run();
    expect(report.suites?.map((s) => s.name)).toEqual(['service-account-token']);
    expect(report.checks.every((c) => c.suite === 'service-account-token')).toBe(true);
    expect(JSON.stringify(report)).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./);
    const files = (await readdir(join(dir!, 'service-account-token'), { recursive: true })).map(String);
    for (const f of files.filter((x) => /\.(log|jsonl?|json)$/.test(x))) {
      const text = await readFile(join(dir!, 'service-account-token', f), 'utf8');
      expect({ file: f, jwt: /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/.test(text) }).toEqual({ file: f, jwt: false });
    }
  }, 420_000);
});
