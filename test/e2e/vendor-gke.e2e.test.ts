// The real gke-gcloud-auth-plugin (kubernetes/cloud-provider-gcp @ d74b2e1d6653,
// built unmodified from the Go module proxy), end to end:
// - `credprov certify exec-plugin` on GKE's own (v1beta1) kubeconfig user in ADC mode,
//   against the fake Google token endpoint: every MUST holds; and on a v1 user, where
//   the plugin's fixed v1beta1 answer is refused (the finding, pinned);
// - the vendor-gke suite on a local cluster whose kube-apiserver reviews tokens with
//   credprov's token webhook over the fake's book: every check passes but
//   GKE-EXEC-INFO-V1 (the same finding, live), and no private key or token reaches any
//   file the run wrote.
// The build is a prerequisite (scripts/test.sh makes it): missing, these tests skip
// with the command that builds it, and fail under CI=true.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localProvider } from '../../src/cluster/local/index.ts';
import { ensureVendorPlugin } from '../../src/plugin/vendors/build.ts';
import { GKE_PLUGIN_RECIPE, GKE_PLUGIN_VERSION } from '../../src/plugin/vendors/gke-gcloud-auth-plugin.ts';
import {
  GKE_CERTIFY_USERS,
  startGkeLab,
  writeGkeCertifyKubeconfig,
  type GkeLab,
} from '../../src/vendor-labs/gke-lab.ts';
import type { RunReport } from '../../src/report/model.ts';
import { runSuites, type RunOutcome } from '../../src/run/runner.ts';
import { runCli } from '../../src/testing/cli.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { filesUnder, JWT, leaks, RecordingRedactor } from '../../src/testing/secret-scan.ts';
import { all, isRoot, testIf, type Prerequisite } from '../../src/testing/prerequisites.ts';
import {
  EXEC_INFO_V1,
  GCLOUD_ACCOUNT_SWITCH,
  GCLOUD_REUSE,
  GCLOUD_STALE,
  VENDOR_GKE_CHECKS,
} from '../../suites/vendor-gke/checks.ts';
import { findGcloud } from '../../src/vendor-labs/gcloud-sdk.ts';
import { vendorGkeSuite } from '../../suites/vendor-gke/index.ts';

const available = await localProvider().isAvailable();
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
const itLive = testIf(
  all(isRoot(), buildPre, available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }),
);
const ENV_NAME = e2eEnvName('gke');
/** The gcloud cases need the Google Cloud SDK; without it they are skipped (it is not something credprov builds). */
const gcloud = await findGcloud();
const GCLOUD_CHECKS = [GCLOUD_REUSE, GCLOUD_ACCOUNT_SWITCH, GCLOUD_STALE];
/** Real plugin behaviours that miss a SHOULD (findings), each failed by the suite with evidence. */
const FINDINGS = gcloud ? [EXEC_INFO_V1, GCLOUD_ACCOUNT_SWITCH, GCLOUD_STALE] : [EXEC_INFO_V1];
const TIMEOUT_MS = 300_000;
/** Access tokens as the fake issues them (TokenBook), and any PEM private key. */
const TOKEN_SHAPE = /cp401\.[A-Za-z0-9_-]{20,}/;
const KEY_SHAPE = /PRIVATE KEY-----|MII[A-Za-z0-9+/]{60,}/;
let dir: string | undefined;
const workDir = async () => (dir ??= await mkdtemp(join(tmpdir(), 'credprov-e2e-gke-')));
afterAll(async () => {
  await localProvider().down(ENV_NAME);
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

describe('vendor-gke suite on a local cluster', () => {
  const redactor = new RecordingRedactor();
  let outcome: Promise<RunOutcome> | undefined;
  const run = (): Promise<RunOutcome> =>
    (outcome ??= (async () =>
      runSuites([vendorGkeSuite], {
        baseSpec: {
          name: ENV_NAME,
          provider: 'local',
          ...(process.env.CREDPROV_KUBE_BIN_DIR ? { binDir: process.env.CREDPROV_KUBE_BIN_DIR } : {}),
        },
        artifactsDir: join(await workDir(), 'suite'),
        redactor,
      }))());

  itLive(
    'GKE: every check passed against the real plugin, clients and kube-apiserver, but the findings (failed SHOULDs)',
    async () => {
      const { report } = await run();
      const notPassed = report.checks
        .filter((c) => c.status !== 'passed')
        .map((c) => `${c.id} ${c.status}${c.cause ? ` (${c.cause})` : ''}`);
      expect(notPassed).toEqual([
        ...FINDINGS.map((c) => `${c.id} failed (subject)`),
        ...(gcloud ? [] : GCLOUD_CHECKS.map((c) => `${c.id} skipped`)),
      ]);
      expect(report.checks.map((c) => c.id).sort()).toEqual(VENDOR_GKE_CHECKS.map((c) => c.id).sort());
    },
    TIMEOUT_MS,
  );

  for (const check of VENDOR_GKE_CHECKS.filter(
    (c) => !FINDINGS.includes(c) && (gcloud || !GCLOUD_CHECKS.includes(c)),
  )) {
    itLive(
      `${check.id}: ${check.title}`,
      async () => {
        const { report } = await run();
        const result = report.checks.find((c) => c.id === check.id);
        expect(result ? `${result.status}: ${result.message}` : `${check.id} did not report`).toMatch(/^passed: /);
      },
      TIMEOUT_MS,
    );
  }

  itLive(
    `${EXEC_INFO_V1.id}: as predicted, the plugin answers v1beta1 to a v1 user and kubectl refuses it; a failed SHOULD`,
    async () => {
      const { report } = await run();
      const r = report.checks.find((c) => c.id === EXEC_INFO_V1.id);
      expect(r?.status).toBe('failed');
      expect(r?.message).toMatch(/as predicted.*but the plugin answers client\.authentication\.k8s\.io\/v1beta1/s);
    },
    TIMEOUT_MS,
  );

  testIf(all(isRoot(), buildPre, gcloud ? { ok: true } : { ok: false, reason: 'gcloud is not installed' }))(
    `${GCLOUD_ACCOUNT_SWITCH.id} and ${GCLOUD_STALE.id}: cloud-provider-gcp#1122 reproduced with the real gcloud, and a refused token served from the cache`,
    async () => {
      if (!available.ok) throw new Error(`local provider: ${available.reason}`);
      const { report } = await run();
      const message = (id: string) => report.checks.find((c) => c.id === id)?.message ?? '';
      expect(message(GCLOUD_ACCOUNT_SWITCH.id)).toMatch(
        /first credprov:exec:gke-gcloud-a, then credprov:exec:gke-gcloud-a .*as predicted.*cloud-provider-gcp#1122/s,
      );
      expect(message(GCLOUD_STALE.id)).toMatch(
        /kubectl 401\/2; client-go 401\/2 401\/1; 0 gcloud run\(s\); always the cached token, as predicted/,
      );
    },
    TIMEOUT_MS,
  );

  itLive(
    'GKE-SECRETS: no private key or access token reaches the report or any artifact, and the evidence stays readable',
    async () => {
      const { report } = await run();
      const secrets = [...new Set(redactor.seen)];
      // The lab's 9 private keys (as PEM, JSON-escaped PEM and bare base64) and every token the fake issued were registered.
      expect(secrets.filter((s) => s.startsWith('cp401.')).length).toBeGreaterThan(5);
      expect(secrets.filter((s) => s.includes('PRIVATE KEY')).length).toBe(18);
      const suiteDir = join(await workDir(), 'suite');
      const files = await filesUnder(suiteDir);
      expect(files.some((f) => f.endsWith('fake-google-requests.jsonl'))).toBe(true);
      expect(await leaks(suiteDir, secrets, [TOKEN_SHAPE, KEY_SHAPE, JWT])).toEqual([]);
      const texts = [JSON.stringify(report), ...(await Promise.all(files.map((f) => readFile(f, 'utf8'))))];
      for (const text of texts) for (const shape of [TOKEN_SHAPE, KEY_SHAPE, JWT]) expect(text).not.toMatch(shape);
      const reportText = JSON.stringify(report);
      expect(secrets.filter((s) => s.length >= 8 && reportText.includes(s)).length).toBe(0);
      const all = texts.join('\n');
      expect(all).toContain('gke-viewer@credprov-lab.iam.gserviceaccount.com');
      expect(all).toContain('urn:ietf:params:oauth:grant-type:jwt-bearer');
      expect(all).toContain('credprov:exec:gke-viewer');
    },
    TIMEOUT_MS,
  );

  itLive(
    'GKE-TEARDOWN: the run tears its environment down',
    async () => {
      const { tornDown } = await run();
      expect(tornDown).toBe(true);
    },
    TIMEOUT_MS,
  );
});
