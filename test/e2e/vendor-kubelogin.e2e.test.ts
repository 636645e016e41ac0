// The real kubelogin v1.36.3 (int128/kubelogin, built unmodified from the Go
// module proxy), end to end:
// - `credprov certify exec-plugin` on kubeconfig users that exec
//   `kubectl-oidc_login get-token --grant-type password` against credprov's
//   OIDC issuer and token endpoint (v1, upstream's README form, and v1beta1):
//   every MUST holds, through every real client;
// - no client secret, password, refresh, id or access token the lab made
//   reaches any file certify wrote.
// The vendor-kubelogin suite itself runs in the e2e table (suite-table.ts).
// The build is a prerequisite (scripts/test.sh makes it): missing, these tests
// skip with the command that builds it, and fail under CI=true.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTokenWebhookFiles } from '../../src/authn/webhook-files.ts';
import { ensureVendorPlugin } from '../../src/plugin/vendors/build.ts';
import { KUBELOGIN_RECIPE, KUBELOGIN_VERSION } from '../../src/plugin/vendors/kubelogin.ts';
import { KUBELOGIN_CERTIFY_USERS, writeKubeloginCertifyKubeconfig } from '../../src/vendor-labs/kubelogin-certify.ts';
import { startKubeloginLab, type KubeloginLab } from '../../src/vendor-labs/kubelogin-lab.ts';
import type { RunReport } from '../../src/report/model.ts';
import { runCli } from '../../src/testing/cli.ts';
import { leaks } from '../../src/testing/secret-scan.ts';
import { all, isRoot, testIf, type Prerequisite } from '../../src/testing/prerequisites.ts';

const built = await ensureVendorPlugin(KUBELOGIN_RECIPE, { version: KUBELOGIN_VERSION, cachedOnly: true }).catch(
  () => undefined,
);
const buildPre: Prerequisite = built
  ? { ok: true }
  : {
      ok: false,
      reason: `kubelogin ${KUBELOGIN_VERSION} is not built (scripts/test.sh builds it; or credprov run --suite vendor-kubelogin)`,
    };
const it = testIf(all(isRoot(), buildPre));
const TIMEOUT_MS = 300_000;

let dir: string | undefined;
const workDir = async () => (dir ??= await mkdtemp(join(tmpdir(), 'credprov-e2e-kubelogin-')));
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('certify exec-plugin: kubelogin get-token', () => {
  let lab: KubeloginLab | undefined;
  const secrets: string[] = [];
  afterAll(async () => lab?.stop(), 30_000);

  for (const [version, user] of Object.entries(KUBELOGIN_CERTIFY_USERS)) {
    it(
      `KUBELOGIN-CERTIFY-${version.toUpperCase()}: every MUST holds for the ${version} user through every client; no secret reaches the report`,
      async () => {
        if (!lab) {
          const files = await ensureTokenWebhookFiles(`e2e-certify-kubelogin-${process.pid}`, {
            CREDPROV_STATE_DIR: join(await workDir(), 'state'),
          });
          lab = await startKubeloginLab({
            dir: join(await workDir(), 'certify-lab'),
            files,
            onSecret: (s) => secrets.push(s),
          });
        }
        const kubeconfig = await writeKubeloginCertifyKubeconfig(lab, join(await workDir(), 'certify-lab'));
        const out = join(await workDir(), `certify-${version}`);
        const r = await runCli([
          'certify',
          'exec-plugin',
          '--kubeconfig',
          kubeconfig,
          '--user',
          user,
          '--report-dir',
          out,
        ]);
        const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as RunReport;
        const notPassed = report.checks.filter(
          (c) => c.status !== 'passed' && !(c.id === 'EP-CERT-VALID' && /no client certificate/.test(c.message)),
        );
        expect(notPassed.map((c) => `${c.id} ${c.status}: ${c.message}`)).toEqual([]);
        expect(r.code).toBe(0);
        const clients = ((report.subject.clients ?? []) as Array<{ name: string }>).map(
          (c) => `EP-CLIENT-${c.name.toUpperCase()}`,
        );
        expect(report.checks.filter((c) => c.id.startsWith('EP-CLIENT-')).map((c) => `${c.id} ${c.status}`)).toEqual(
          clients.map((id) => `${id} passed`),
        );
        expect(secrets.length).toBeGreaterThan(5);
        expect(await leaks(out, secrets)).toEqual([]);
      },
      TIMEOUT_MS,
    );
  }
});
