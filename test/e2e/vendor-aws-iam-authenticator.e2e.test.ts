// The real aws-iam-authenticator v0.7.18 (kubernetes-sigs, built unmodified
// from the Go module proxy), end to end:
// - `credprov certify exec-plugin` on kubeconfig users that exec
//   `aws-iam-authenticator token -i <cluster id>` (upstream's v1beta1 form, and v1),
//   and `aws eks get-token --cluster-name <cluster id>` (awscli from PyPI, both forms):
//   every MUST holds;
// - the vendor-aws-iam-authenticator suite on a local cluster whose kube-apiserver
//   uses `aws-iam-authenticator server` as its token webhook, STS faked on loopback:
//   real kubectl gets 200 and `auth whoami` shows the mapped user; unknown keys,
//   wrong secrets, unmapped identities, other cluster ids, unsigned cluster ids,
//   expired tokens and tokens outside STS's window get 401, each where and why
//   credprov's model says; then the same with awscli making every token.
// The build and awscli are prerequisites (scripts/test.sh makes both): missing, these tests
// skip with the command that builds it, and fail under CI=true.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostsFile } from '../../src/core/hosts.ts';
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
import { VENDOR_IAM_CHECKS } from '../../suites/vendor-aws-iam-authenticator/checks.ts';
import { vendorAwsIamAuthenticatorSuite } from '../../suites/vendor-aws-iam-authenticator/index.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { filesUnder, leaks, RecordingRedactor } from '../../src/testing/secret-scan.ts';
import { notPassed, sortedIds, suiteOnLocalCluster } from '../../src/testing/suite-on-local-cluster.ts';

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
const ENV_NAME = e2eEnvName('iam');
const TIMEOUT_MS = 300_000;
/** The checks the harness cannot provoke or that do not apply to a token plugin, with why. */
const NOT_APPLICABLE: Record<string, RegExp> = {
  'EP-CERT-VALID': /no client certificate/,
  // The plugin succeeds whatever KUBERNETES_EXEC_INFO says (it echoes the apiVersion, falls back to v1beta1 on bad JSON).
  'EP-FAILURE-EXPLAINED': /could not provoke a failure/,
};

/** Running `aws-iam-authenticator server` processes of a credprov lab (their config lives in a credprov-iam-* dir). */
async function labServers(): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (
      argv[0]?.endsWith('/aws-iam-authenticator') &&
      argv[1] === 'server' &&
      argv.some((a) => a.includes('/credprov-iam-'))
    )
      found.push(`${pid}: ${argv.join(' ')}`);
  }
  return found;
}

/** A presigned EKS token, or its signature: neither may reach an artefact. */
const EKS_TOKEN_SHAPES = [/k8s-aws-v1\.[A-Za-z0-9_-]{20,}/, /X-Amz-Signature=[0-9a-f]{16}/i];

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

const redactor = new RecordingRedactor();
const suite = await suiteOnLocalCluster(vendorAwsIamAuthenticatorSuite, {
  envName: ENV_NAME,
  redactor,
  prerequisites: [buildPre],
});
const { run } = suite;
const itLive = suite.it;

describe('vendor-aws-iam-authenticator suite on a local cluster', () => {
  itLive(
    'IAM: every check of the suite passed against the real plugin, server and kube-apiserver',
    async () => {
      const { report } = await run();
      expect(notPassed(report.checks)).toEqual([]);
      expect(sortedIds(report.checks)).toEqual(sortedIds(VENDOR_IAM_CHECKS));
    },
    TIMEOUT_MS,
  );

  for (const check of VENDOR_IAM_CHECKS) {
    itLive(
      `${check.id}: ${check.title}`,
      async () => expect(await suite.verdict(check.id)).toMatch(/^passed: /),
      TIMEOUT_MS,
    );
  }

  itLive(
    'IAM-SECRETS: no AWS secret or token (of either command) reaches the report or any artifact, and what is not secret stays readable',
    async () => {
      const { report } = await run();
      const text = JSON.stringify(report);
      for (const shape of EKS_TOKEN_SHAPES) expect(text).not.toMatch(shape);
      // The lab's four secret keys, and every token either command printed.
      expect(redactor.seen.length).toBeGreaterThan(10);
      const suiteDir = suite.dir();
      expect((await filesUnder(suiteDir)).some((f) => f.endsWith('fake-sts-requests.jsonl'))).toBe(true);
      expect(await leaks(suiteDir, redactor.seen, EKS_TOKEN_SHAPES)).toEqual([]);
      expect(text).toContain('arn:aws:iam::111122223333:user/credprov-dev');
      expect(text).toContain('sts.us-west-2.amazonaws.com');
      expect(text).not.toContain('<redacted>');
    },
    TIMEOUT_MS,
  );

  itLive(
    'IAM-TEARDOWN: the run tears its environment down, and leaves no /etc/hosts line for STS and no authenticator server running',
    async () => {
      const { tornDown } = await run();
      expect(tornDown).toBe(true);
      const ours = (await new HostsFile().entries()).filter((e) =>
        e.owner.startsWith(`vendor/aws-iam-authenticator/${process.pid}-`),
      );
      expect(ours).toEqual([]);
      expect(await labServers()).toEqual([]);
    },
    TIMEOUT_MS,
  );
});
