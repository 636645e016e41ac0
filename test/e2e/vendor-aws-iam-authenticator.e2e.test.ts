// The real aws-iam-authenticator v0.7.18 (kubernetes-sigs, built unmodified
// from the Go module proxy), end to end:
// - `credprov certify exec-plugin` on kubeconfig users that exec
//   `aws-iam-authenticator token -i <cluster id>` (upstream's v1beta1 form, and v1),
//   and `aws eks get-token --cluster-name <cluster id>` (awscli from PyPI, both forms):
//   every MUST holds;
// the vendor-aws-iam-authenticator suite itself runs in the e2e table (suite-table.ts).
// The build and awscli are prerequisites (scripts/test.sh makes both): missing, these tests
// skip with the command that builds it, and fail under CI=true.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IAM_AUTHENTICATOR_RECIPE, IAM_AUTHENTICATOR_VERSION } from '../../src/plugin/vendors/aws-iam-authenticator.ts';
import { ensureVendorPlugin } from '../../src/plugin/vendors/build.ts';
import { AWS_CLI_VERSION, ensureAwsCli } from '../../src/plugin/vendors/aws-cli.ts';
import {
  CERTIFY_USERS,
  startIamAuthenticatorLab,
  writeCertifyKubeconfig,
  type IamAuthenticatorLab,
} from '../../src/vendor-labs/iam-authenticator-lab.ts';
import type { RunReport } from '../../src/report/model.ts';
import { runCli } from '../../src/testing/cli.ts';
import { all, isRoot, testIf, type Prerequisite } from '../../src/testing/prerequisites.ts';
import { leaks } from '../../src/testing/secret-scan.ts';
import { EKS_TOKEN_SHAPES } from './suite-extras-vendor.ts';

const built = await ensureVendorPlugin(IAM_AUTHENTICATOR_RECIPE, {
  version: IAM_AUTHENTICATOR_VERSION,
  cachedOnly: true,
}).catch(() => undefined);
const awsCli = await ensureAwsCli({ cachedOnly: true }).catch(() => undefined);
const buildPre: Prerequisite =
  built && awsCli
    ? { ok: true }
    : {
        ok: false,
        reason: `${built ? `awscli ${AWS_CLI_VERSION} is not installed` : `aws-iam-authenticator ${IAM_AUTHENTICATOR_VERSION} is not built`} (scripts/test.sh makes both; or credprov run --suite vendor-aws-iam-authenticator)`,
      };
const it = testIf(all(isRoot(), buildPre));
const TIMEOUT_MS = 300_000;
/** The checks the harness cannot provoke or that do not apply to a token plugin, with why. */
const NOT_APPLICABLE: Record<string, RegExp> = {
  'EP-CERT-VALID': /no client certificate/,
  // The plugin succeeds whatever KUBERNETES_EXEC_INFO says (it echoes the apiVersion, falls back to v1beta1 on bad JSON).
  'EP-FAILURE-EXPLAINED': /could not provoke a failure/,
};

let dir: string | undefined;
const workDir = async () => (dir ??= await mkdtemp(join(tmpdir(), 'credprov-e2e-iam-')));
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('certify exec-plugin: aws-iam-authenticator token', () => {
  let lab: IamAuthenticatorLab | undefined;
  afterAll(async () => {
    await lab?.stop();
  }, 30_000);

  for (const [version, user] of Object.entries(CERTIFY_USERS)) {
    it(
      `IAM-CERTIFY-${version.toUpperCase()}: every MUST holds for the ${version} user; only checks that cannot apply are skipped; no token reaches the report`,
      async () => {
        lab ??= await startIamAuthenticatorLab({
          dir: join(await workDir(), 'certify-lab'),
          ...(awsCli ? { awsCli } : {}),
        });
        const kubeconfig = await writeCertifyKubeconfig(lab, join(await workDir(), 'certify.kubeconfig'));
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
          // awscli is Python: 0.8 s a run alone, 4-6 s each when certify starts 8 at once on a loaded
          // 2-core runner. The verdict is on what it answers, not on this machine's speed.
          ...(version.startsWith('awscli') ? ['--timeout', '30s'] : []),
        ]);
        const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as RunReport;
        const notPassed = report.checks.filter(
          (c) => c.status !== 'passed' && !(c.status === 'skipped' && NOT_APPLICABLE[c.id]?.test(c.message)),
        );
        expect(notPassed.map((c) => `${c.id} ${c.status}: ${c.message}`)).toEqual([]);
        expect(r.code).toBe(0);
        expect(report.checks.find((c) => c.id === 'EP-FOLLOWS-EXEC-INFO-VERSION')?.status).toBe('passed');
        // Every real client this machine has ran it (certify's default), each with its own passed check.
        const clients = ((report.subject.clients ?? []) as Array<{ name: string }>).map(
          (c) => `EP-CLIENT-${c.name.toUpperCase()}`,
        );
        expect(report.checks.filter((c) => c.id.startsWith('EP-CLIENT-')).map((c) => `${c.id} ${c.status}`)).toEqual(
          clients.map((id) => `${id} passed`),
        );
        // Every file certify wrote (report, invocations, JUnit, HTML): no key, no token.
        expect(await leaks(out, lab.secrets, EKS_TOKEN_SHAPES)).toEqual([]);
      },
      TIMEOUT_MS,
    );
  }
});
