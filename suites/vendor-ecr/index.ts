// The vendor-ecr suite: the real ecr-credential-provider (kubernetes/cloud-provider-aws,
// built unmodified from the Go module proxy) under the real kubelet.
//
// - Fake AWS on loopback (src/fake-clouds/aws/): ECR GetAuthorizationToken
//   (SigV4-verified; token lifetime per region) and STS AssumeRoleWithWebIdentity
//   (the token verified against the API server's own OIDC discovery and JWKS).
//   The provider entries' env points every AWS endpoint there and turns IMDS off.
// - Two lab registries (htpasswd + TLS, user AWS) stand in for ECR registries:
//   containerd routes <account>.dkr.ecr.<region>.amazonaws.com (and public.ecr.aws)
//   to them through hosts.toml. The plugin never talks to a registry.
// - Each provider name is a recording wrapper in front of the same binary: it
//   records request, answer and exit status; the plugin itself is untouched.
//
// The providers and token lifetimes are in plan.ts, the predictions in
// predict.ts. The cases run one at a time: each pod's window of plugin execs
// and AWS requests must be its own. The refresh case waits out a cache entry,
// so its first two pulls run before the SA cases and its last one after.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { cp } from 'node:fs/promises';
import { VENDOR_ECR_CHECKS } from './checks.ts';
import {
  ACCOUNT,
  NAMESPACE,
  PROVIDER,
  providerConfig,
  REFRESH_LIFETIME_MS,
  REGION,
  runNames,
  TOKEN_LIFETIME_MS,
} from './plan.ts';
import { pullCases } from './pull-cases.ts';
import { refreshCase, startRefresh } from './refresh-cases.ts';
import { saCases } from './sa-cases.ts';
import { openSession, type EcrLab } from './session.ts';
import { behaviourFor, type KubeBehaviour } from '../../src/versions/table.ts';
import {
  ECR_PLUGIN_VERSION,
  ECR_RECIPE,
  vendorPlugin,
  FakeAws,
  installRecordingWrapper,
  newIamUser,
  pluginDir,
  redactWrapperLog,
  runCases,
  saTokenGates,
  startLabRegistry,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';

const ONE_AT_A_TIME = { concurrency: 1 };

export const vendorEcrSuite: Suite = {
  name: 'vendor-ecr',
  summary:
    'the real ecr-credential-provider (cloud-provider-aws, unmodified) under the kubelet against fake ECR/STS on loopback: ' +
    'pull, matchImages, its cache answer, token refresh, and KEP-4412 mode (role annotation, node audience RBAC, STS audience)',
  checks: VENDOR_ECR_CHECKS,
  needsBuild:
    `ecr-credential-provider ${ECR_PLUGIN_VERSION} from the Go module proxy ` +
    '(k8s.io/cloud-provider-aws; built into <cache>/plugins on first use, about a minute with a warm Go cache)',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const behaviour = behaviourFor(ctx.kubeVersion);
    const lab = await startEcrLab(ctx, behaviour);
    return {
      // pluginsReachHost: the plugin's env points every AWS endpoint at the fake on this host's loopback (reachFromPlugins).
      needs: ['installPlugins', 'hostRegistries', 'pluginsReachHost'],
      spec: {
        credentialProvider: { plugins: lab.plugins, config: lab.config as unknown as Record<string, unknown> },
        // The two KEP-4412 providers: on 1.33 the alpha gate is turned on (kubelet and API server), so the SA checks judge the real kubelet.
        featureGates: saTokenGates(behaviour),
      },
      async run(run) {
        const session = await openSession(run, lab);
        const results = await runCases(run, pullCases(session), ONE_AT_A_TIME);
        const refresh = await startRefresh(session);
        const later = [...(await saCases(session)), refreshCase(session, refresh)];
        return [...results, ...(await runCases(run, later, ONE_AT_A_TIME))];
      },
    };
  },
};

/** The plugin, two lab registries, the fake AWS and one recording wrapper per provider name; everything stopped after the suite. */
async function startEcrLab(
  ctx: SuiteSetup,
  behaviour: KubeBehaviour,
): Promise<EcrLab & { plugins: Record<string, string> }> {
  const names = runNames(randomBytes(3).toString('hex'));
  // Where the wrappers record each exec: the plugin runs in the node, so a dir nodes see (pluginDir).
  const logDir = await pluginDir(ctx, 'ecr-invocations');
  // Registered after pluginDir, so it runs before its removal: once nothing writes to the log any more.
  ctx.defer(async () => {
    await redactWrapperLog(logDir, (t) => ctx.redactor.text(t));
    await cp(logDir, join(ctx.artifactsDir, 'plugin-invocations'), { recursive: true });
  });
  const plugin = await vendorPlugin(ctx, ECR_RECIPE, ECR_PLUGIN_VERSION);
  const [main, refresh] = await Promise.all([
    ctx.own(startLabRegistry(ctx, 'ecr', { username: 'AWS' })),
    ctx.own(startLabRegistry(ctx, 'ecr-refresh', { username: 'AWS' })),
  ]);
  await main.push('team/app');
  await main.push('team/other');
  await refresh.push('team/app');
  const user = newIamUser('kubelet-node', ACCOUNT);
  ctx.redactor.add(user.secretAccessKey);
  const mainPassword = main.user.password;
  const fake = new FakeAws({
    users: [user],
    ecr: {
      // us-west-2 hands out a fresh password per token and makes the registry accept only it.
      async password({ region }) {
        if (region !== REGION.refresh) return mainPassword;
        const password = randomBytes(18).toString('base64url');
        ctx.redactor.add(password);
        await refresh.registry.users.rotate('AWS', password);
        return password;
      },
      lifetimeMs: (region) => (region === REGION.refresh ? REFRESH_LIFETIME_MS : TOKEN_LIFETIME_MS),
    },
    sts: {
      audiences: [names.audience],
      roles: [{ arn: names.roleArn, subjects: [`system:serviceaccount:${NAMESPACE}:${names.puller}`] }],
    },
    logFile: join(ctx.artifactsDir, 'fake-aws-requests.jsonl'),
  });
  ctx.defer(() => fake.stop());
  const endpoints = await fake.start();
  const config = providerConfig(endpoints, user, names, behaviour);
  const plugins: Record<string, string> = {};
  for (const name of Object.values(PROVIDER)) {
    plugins[name] = await installRecordingWrapper({
      binDir: join(ctx.artifactsDir, 'bin'),
      name,
      target: plugin.path,
      logDir,
    });
  }
  return { names, main, refresh, fake, endpoints, config, logDir, plugins };
}
