// The real kubelogin v1.36.3 (int128/kubelogin, built unmodified from the Go
// module proxy), end to end:
// - `credprov certify exec-plugin` on kubeconfig users that exec
//   `kubectl-oidc_login get-token --grant-type password` against credprov's
//   OIDC issuer and token endpoint (v1, upstream's README form, and v1beta1):
//   every MUST holds, through every real client;
// - the vendor-kubelogin suite on a local cluster whose kube-apiserver's
//   structured JWT authenticator trusts that issuer: password and client
//   credentials grants, the token cache, refresh and a revoked refresh token,
//   id_token vs access_token, the issuer CA, the four clients;
// - SECRETS: no client secret, password, refresh, id or access token the lab
//   made reaches any file either run wrote.
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
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { filesUnder, JWT, leaks, RecordingRedactor } from '../../src/testing/secret-scan.ts';
import { notPassed, sortedIds, suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';
import { all, isRoot, testIf, type Prerequisite } from '../../src/testing/prerequisites.ts';
import { VENDOR_KUBELOGIN_CHECKS } from '../../suites/vendor-kubelogin/checks.ts';
import { vendorKubeloginSuite } from '../../suites/vendor-kubelogin/index.ts';

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
const ENV_NAME = e2eEnvName('kubelogin');
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

const redactor = new RecordingRedactor();
const suite = await suiteOnLocalCluster(vendorKubeloginSuite, {
  envName: ENV_NAME,
  redactor,
  prerequisites: [buildPre],
});
const { run } = suite;
const itLive = suite.it;

describe('vendor-kubelogin suite on a local cluster', () => {
  itLive(
    'KUBELOGIN: every check of the suite passed against the real plugin, clients and kube-apiserver',
    async () => {
      const { report } = await run();
      expect(notPassed(report.checks)).toEqual([]);
      expect(sortedIds(report.checks)).toEqual(sortedIds(VENDOR_KUBELOGIN_CHECKS));
    },
    TIMEOUT_MS,
  );

  for (const check of VENDOR_KUBELOGIN_CHECKS) {
    itLive(
      `${check.id}: ${check.title}`,
      async () => expect(await suite.verdict(check.id)).toMatch(/^passed: /),
      TIMEOUT_MS,
    );
  }

  itLive(
    'KUBELOGIN-SECRETS: no client secret, password, refresh, id or access token reaches the report or any artifact; what is not secret stays readable',
    async () => {
      const { report } = await run();
      // Passwords and client secrets (5), and at least a token triple per login.
      expect(redactor.seen.length).toBeGreaterThan(20);
      const text = JSON.stringify(report);
      expect(text).not.toMatch(JWT);
      for (const s of redactor.seen) expect(text.includes(s) ? 'a secret in report.json' : 'clean').toBe('clean');
      const suiteDir = suite.dir();
      // Something was written to scan: at least the token endpoint's request log.
      expect((await filesUnder(suiteDir)).some((f) => f.endsWith('token-endpoint-requests.jsonl'))).toBe(true);
      expect(await leaks(suiteDir, redactor.seen)).toEqual([]);
      expect(text).toContain('oidc:alice');
      expect(text).toContain('refresh_token/body:400');
    },
    TIMEOUT_MS,
  );

  itLive(
    'KUBELOGIN-TEARDOWN: the run tears its environment down',
    async () => {
      const { tornDown } = await run();
      expect(tornDown).toBe(true);
    },
    TIMEOUT_MS,
  );
});
