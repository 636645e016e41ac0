// The real gke-gcloud-auth-plugin (kubernetes/cloud-provider-gcp @ d74b2e1d6653,
// built unmodified from the Go module proxy), end to end:
// - `credprov certify exec-plugin` on GKE's own (v1beta1) kubeconfig user in ADC mode,
//   against the fake Google token endpoint: every MUST holds; and on a v1 user, where
//   the plugin's fixed v1beta1 answer is refused (the finding, pinned);
// the vendor-gke suite itself runs in the e2e table (suite-table.ts, suites-local-late.e2e.test.ts).
// The build is a prerequisite (scripts/test.sh makes it): missing, these tests skip
// with the command that builds it, and fail under CI=true.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureVendorPlugin } from '../../src/plugin/vendors/build.ts';
import { GKE_PLUGIN_RECIPE, GKE_PLUGIN_VERSION } from '../../src/plugin/vendors/gke-gcloud-auth-plugin.ts';
import {
  GKE_CERTIFY_USERS,
  startGkeLab,
  writeGkeCertifyKubeconfig,
  type GkeLab,
} from '../../src/vendor-labs/gke-lab.ts';
import type { RunReport } from '../../src/report/model.ts';
import { runCli } from '../../src/testing/cli.ts';
import { JWT, leaks } from '../../src/testing/secret-scan.ts';
import { all, isRoot, testIf, type Prerequisite } from '../../src/testing/prerequisites.ts';

const built = await ensureVendorPlugin(GKE_PLUGIN_RECIPE, { version: GKE_PLUGIN_VERSION, cachedOnly: true }).catch(
  () => undefined,
);
const buildPre: Prerequisite = built
  ? { ok: true }
  : {
      ok: false,
      reason: `gke-gcloud-auth-plugin ${GKE_PLUGIN_VERSION} is not built (scripts/test.sh builds it; or credprov run --suite vendor-gke)`,
    };
const it = testIf(all(isRoot(), buildPre));
const TIMEOUT_MS = 300_000;
/** Access tokens as the fake issues them (TokenBook), and any PEM private key. */
const TOKEN_SHAPE = /cp401\.[A-Za-z0-9_-]{20,}/;
const KEY_SHAPE = /PRIVATE KEY-----|MII[A-Za-z0-9+/]{60,}/;
let dir: string | undefined;
const workDir = async () => (dir ??= await mkdtemp(join(tmpdir(), 'credprov-e2e-gke-')));
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('certify exec-plugin: gke-gcloud-auth-plugin --use_application_default_credentials', () => {
  let lab: GkeLab | undefined;
  const tokens: string[] = [];
  afterAll(async () => {
    await lab?.stop();
  }, 30_000);
  const certify = async (version: keyof typeof GKE_CERTIFY_USERS) => {
    lab ??= await startGkeLab({ dir: join(await workDir(), 'certify-lab'), onIssue: (t) => tokens.push(t) });
    const kubeconfig = await writeGkeCertifyKubeconfig(lab, join(await workDir(), 'certify.kubeconfig'));
    const out = join(await workDir(), `certify-${version}`);
    const r = await runCli([
      'certify',
      'exec-plugin',
      '--kubeconfig',
      kubeconfig,
      '--user',
      GKE_CERTIFY_USERS[version],
      '--report-dir',
      out,
    ]);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as RunReport;
    // Every file certify wrote: no private key, no access or ID token.
    expect(await leaks(out, [...lab.secrets, ...tokens], [TOKEN_SHAPE, KEY_SHAPE, JWT])).toEqual([]);
    const status = (id: string) => report.checks.find((c) => c.id === id)?.status;
    return { code: r.code, report, status };
  };

  it(
    'GKE-CERTIFY-V1BETA1: every MUST holds for GKE’s own v1beta1 user; the one SHOULD it misses is the fixed answer version',
    async () => {
      const { code, report, status } = await certify('v1beta1');
      const notPassed = report.checks
        .filter((c) => c.status !== 'passed')
        .map((c) => `${c.id} ${c.status}`)
        .sort();
      // No certificate to check; it cannot be made to fail by KUBERNETES_EXEC_INFO (it never reads it).
      expect(notPassed).toEqual([
        'EP-CERT-VALID skipped',
        'EP-FAILURE-EXPLAINED skipped',
        'EP-FOLLOWS-EXEC-INFO-VERSION failed',
      ]);
      expect(code).toBe(0);
      expect(status('EP-CLIENT-PYTHON')).toBe('passed');
      expect(lab!.fake.requests().every((g) => g.status === 200)).toBe(true);
    },
    TIMEOUT_MS,
  );

  it(
    'GKE-CERTIFY-V1: a v1 user gets a v1beta1 answer, which client-go refuses (EP-APIVERSION fails: the finding)',
    async () => {
      const { code, report, status } = await certify('v1');
      expect(code).toBe(1);
      expect(report.checks.find((c) => c.id === 'EP-APIVERSION')?.message).toContain(
        'plugin returned version client.authentication.k8s.io/v1beta1',
      );
      expect([status('EP-CLIENT-KUBECTL'), status('EP-CLIENT-CLIENT-GO'), status('EP-CLIENT-PYTHON')]).toEqual([
        'failed',
        'failed',
        'failed',
      ]);
      // client-node never checks the answer's apiVersion.
      expect(status('EP-CLIENT-CLIENT-NODE')).toBe('passed');
    },
    TIMEOUT_MS,
  );
});
