// The vendor-aws-iam-authenticator suite: the real aws-iam-authenticator
// (kubernetes-sigs, built unmodified from the Go module proxy) on both sides
// of a live API server:
// - the client side: kubeconfig users exec `aws-iam-authenticator token -i <id>`
//   (behind a recording wrapper) with keys from a shared credentials profile;
//   real kubectl sends what it prints;
// - the server side: `aws-iam-authenticator server` is kube-apiserver's token
//   webhook (the webhook kubeconfig it writes is the environment's
//   apiserver.tokenWebhookConfigFile), with a static mapUsers mapping;
// - STS is faked on https://sts.<region>.amazonaws.com:443 at a loopback address
//   (src/vendor-labs/iam-authenticator-lab.ts): SigV4 checked against the keys
//   it issued, 15-minute window after X-Amz-Date, account/ARN/user id answered.
//
// Every case first predicts the API server's answer for the token at hand from
// credprov's model of the authenticator + STS (predict.ts), then runs kubectl
// and compares: the HTTP status kubectl got, who refused (the authenticator
// before calling STS, STS, or the mapping: told apart by the fake STS's request
// log) and why (the authenticator's own log line). The cases run one at a time:
// each kubectl run's window of plugin runs, STS requests and log lines must be
// its own, and the STS window case moves the fake STS's clock.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VENDOR_IAM_CHECKS } from './checks.ts';
import { execV1Case, expiryCase, noCredentialsCase, tokenBytesCase, whoamiCase } from './client-cases.ts';
import { CRAFTED_CASES, TOKEN_COMMAND_PLANS, type TokenCommandPlan } from './plan.ts';
import { openSession, type Session } from './session.ts';
import { stsWindowCase, tokenCase } from './token-cases.ts';
import {
  AWS_CLI_VERSION,
  cacheDir,
  CredprovError,
  ensureAwsCli,
  IAM_AUTHENTICATOR_VERSION,
  notRun,
  runCases,
  startIamAuthenticatorLab,
  type Case,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';

export const vendorAwsIamAuthenticatorSuite: Suite = {
  name: 'vendor-aws-iam-authenticator',
  summary:
    "the real aws-iam-authenticator (kubernetes-sigs, unmodified) as kubectl's exec plugin and as kube-apiserver's token webhook, " +
    'against fake STS on loopback: mapped user 200 and whoami, v1 and v1beta1, expiry, and the 401s ' +
    '(unknown key, wrong secret, unmapped, other cluster id, unsigned cluster id, expired, STS window); ' +
    "then the same with awscli's `aws eks get-token` (Python) making the tokens",
  checks: VENDOR_IAM_CHECKS,
  needsBuild:
    `aws-iam-authenticator ${IAM_AUTHENTICATOR_VERSION} from the Go module proxy ` +
    `(sigs.k8s.io/aws-iam-authenticator) and awscli ${AWS_CLI_VERSION} from PyPI, into <cache>/plugins on first use`,
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    // The lab holds credentials files and live tokens: a temp dir, not the (kept) artifacts dir.
    const dir = await mkdtemp(join(tmpdir(), 'credprov-iam-'));
    ctx.defer(() => rm(dir, { recursive: true, force: true }));
    const awsCli = await ensureAwsCli({ cacheDir: cacheDir(ctx.processEnv), progress: ctx.progress, log: ctx.log });
    if (!awsCli) throw new CredprovError(`awscli ${AWS_CLI_VERSION} was neither cached nor installed`);
    // The lab builds the plugin on first use (minutes with cold Go caches).
    const lab = await startIamAuthenticatorLab({
      awsCli,
      dir,
      cacheDir: cacheDir(ctx.processEnv),
      progress: ctx.progress,
      log: ctx.log,
    });
    ctx.defer(async () => {
      await lab.stop();
      // The server's log and the fake STS's requests hold no secret; keep them as evidence.
      await copyFile(lab.serverLog, join(ctx.artifactsDir, 'aws-iam-authenticator-server.log')).catch(() => {});
      await copyFile(join(dir, 'fake-sts-requests.jsonl'), join(ctx.artifactsDir, 'fake-sts-requests.jsonl')).catch(
        () => {},
      );
    });
    ctx.redactor.add(...lab.secrets);
    return {
      needs: ['apiserverAuthn'],
      spec: { apiserver: { tokenWebhookConfigFile: lab.webhookKubeconfig } },
      async run(run) {
        const env = run.environment;
        if (env.spec.apiserver.tokenWebhookConfigFile !== lab.webhookKubeconfig) {
          const why = `environment '${env.name}' (provider ${env.provider}) does not run kube-apiserver with the lab's token webhook`;
          return VENDOR_IAM_CHECKS.map((c) => notRun(c, why, run.ci));
        }
        const s = await openSession(run, lab, dir);
        const cases = [
          ...commandCases(s, TOKEN_COMMAND_PLANS['aws-iam-authenticator']),
          tokenCase(s, CRAFTED_CASES.craftedControl),
          tokenCase(s, CRAFTED_CASES.unsignedId),
          tokenCase(s, CRAFTED_CASES.expired),
          ...commandCases(s, TOKEN_COMMAND_PLANS['aws-eks-get-token']),
        ];
        return runCases(run, cases, { concurrency: 1 });
      },
    };
  },
};

/** Every case a token command's tokens decide, in the order that keeps each case's window its own. */
function commandCases(s: Session, c: TokenCommandPlan): Case[] {
  const t = c.tokenCases;
  return [
    tokenCase(s, t.mapped),
    whoamiCase(s, c),
    execV1Case(s, c),
    expiryCase(s, c),
    tokenBytesCase(s, c),
    tokenCase(s, t.unknownKey),
    tokenCase(s, t.wrongSecret),
    tokenCase(s, t.unmapped),
    tokenCase(s, t.otherCluster),
    stsWindowCase(s, t.stsWindow),
    noCredentialsCase(s, c),
  ];
}
