// The vendor-acr suite: the real acr-credential-provider (kubernetes-sigs/cloud-provider-azure,
// built unmodified from the Go module proxy) under the real kubelet.
//
// - Fake Azure on loopback (src/plugin/vendors/fake-azure.ts): the App Service managed
//   identity endpoint (IDENTITY_ENDPOINT/IDENTITY_HEADER); for the two login servers the plugin
//   calls, their /v2/ challenge and /oauth2/exchange, and Azure AD (login.microsoftonline.com,
//   fake-azure-ad.ts: client assertions verified against the cluster's JWKS), over https on 443
//   under their real names (acr-login-server.ts: lab CA, one /etc/hosts line).
// - Two lab registries (htpasswd + TLS) stand in for ACR: `acr` accepts the service principal
//   and the exchanged refresh token (user 00000000-…); `other` accepts neither. A third, without
//   auth, stands in for the public mcr.microsoft.com. containerd routes the ACR-shaped hosts and
//   mcr.microsoft.com to them through hosts.toml.
// - Each provider name is a recording wrapper in front of the same binary.
//
// The providers are in plan.ts, the predictions in predict.ts. The cases run one at a
// time: each pod's window of plugin execs and Azure requests must be its own.
import { randomBytes, randomUUID } from 'node:crypto';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Auth, busyboxImage, processProvider } from '../../registry/index.ts';
import { cacheDir } from '../../src/core/paths.ts';
import { ACR_PLUGIN_VERSION, ACR_RECIPE, ACR_TOKEN_USERNAME } from '../../src/plugin/vendors/acr.ts';
import { serveFakeLoginServer } from '../../src/plugin/vendors/acr-login-server.ts';
import { ensureVendorPlugin } from '../../src/plugin/vendors/build.ts';
import { FakeAzure } from '../../src/plugin/vendors/fake-azure.ts';
import { FakeAzureAd } from '../../src/plugin/vendors/fake-azure-ad.ts';
import { installRecordingWrapper, redactWrapperLog } from '../../src/plugin/vendors/recording-wrapper.ts';
import {
  pluginDir,
  runCases,
  startLabRegistry,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { VENDOR_ACR_CHECKS } from './checks.ts';
import { acrCases } from './cases.ts';
import { azureJson, NAMESPACE, PROVIDER, providerConfig, runNames } from './plan.ts';
import { openSession, type AcrLab } from './session.ts';

export const vendorAcrSuite: Suite = {
  name: 'vendor-acr',
  summary:
    'the real acr-credential-provider (cloud-provider-azure, unmodified) under the kubelet: static service principal, ' +
    'the empty "*.azurecr.*" entry, the 0s answer for non-ACR images, managed identity with the ACR token exchange ' +
    '(fake IDENTITY_ENDPOINT and login server on loopback), and KEP-4412 mode without managed identity',
  checks: VENDOR_ACR_CHECKS,
  needsBuild:
    `acr-credential-provider ${ACR_PLUGIN_VERSION} from the Go module proxy ` +
    '(sigs.k8s.io/cloud-provider-azure; built into <cache>/plugins on first use, about 4 minutes with a cold Go cache)',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const lab = await startAcrLab(ctx);
    return {
      // pluginsReachHost: the managed-identity provider's env names the fake identity endpoint on this host's loopback.
      needs: ['installPlugins', 'hostRegistries', 'pluginsReachHost'],
      spec: { credentialProvider: { plugins: lab.plugins, config: lab.config as unknown as Record<string, unknown> } },
      async run(run) {
        const session = await openSession(run, lab);
        return runCases(run, await acrCases(session), { concurrency: 1 });
      },
    };
  },
};

/** The plugin, two lab registries, the fake Azure endpoints and one recording wrapper per provider name; all stopped after the suite. */
async function startAcrLab(ctx: SuiteSetup): Promise<AcrLab & { plugins: Record<string, string> }> {
  const names = runNames(randomBytes(3).toString('hex'), randomUUID);
  // Files the plugin reads (azure.json, the lab CA) and the wrappers' log: in a dir the nodes see.
  const files = await pluginDir(ctx, 'acr-files');
  const logDir = await pluginDir(ctx, 'acr-invocations');
  ctx.defer(async () => {
    await redactWrapperLog(logDir, (t) => ctx.redactor.text(t));
    await cp(logDir, join(ctx.artifactsDir, 'plugin-invocations'), { recursive: true });
  });
  const plugin = await ensureVendorPlugin(ACR_RECIPE, {
    version: ACR_PLUGIN_VERSION,
    cacheDir: cacheDir(ctx.processEnv),
    progress: ctx.progress,
    log: ctx.log,
  });
  if (!plugin) throw new Error('acr-credential-provider was neither cached nor built');
  const [acr, other] = await Promise.all([
    ctx.own(startLabRegistry(ctx, 'acr', { username: names.clientId })),
    ctx.own(startLabRegistry(ctx, 'acr-other')),
  ]);
  const refreshToken = randomBytes(24).toString('base64url');
  ctx.redactor.add(refreshToken);
  await acr.registry.users.add({ username: ACR_TOKEN_USERNAME, password: refreshToken });
  await acr.push('team/app');
  await acr.push('team/other');
  await other.push('team/app');
  // mcr.microsoft.com is public: a registry without auth, so a pull with no credentials succeeds and never backs off.
  const publicRegistry = await ctx.own(
    processProvider({ logger: ctx.log }).start({
      name: `acr-mcr-${names.id}`,
      auth: Auth.none(),
      tls: true,
      logger: ctx.log,
      progress: ctx.progress,
    }),
  );
  await publicRegistry.push(await busyboxImage({ marker: `credprov-acr-mcr-${names.id}` }), {
    name: 'team/app',
    tag: 'v1',
  });

  const identityHeader = randomBytes(16).toString('hex');
  ctx.redactor.add(identityHeader);
  // The app the annotations name trusts the run's service account through a federated credential.
  const aad = new FakeAzureAd([
    {
      tenantId: names.tenantId,
      clientId: names.clientId,
      subject: `system:serviceaccount:${NAMESPACE}:${names.puller}`,
      audience: names.audience,
    },
  ]);
  const fake = new FakeAzure({
    tenantId: names.tenantId,
    aad,
    identityHeader,
    refreshToken: () => refreshToken,
    onSecret: (s) => ctx.redactor.add(s),
    logFile: join(ctx.artifactsDir, 'fake-azure-requests.jsonl'),
  });
  ctx.defer(() => fake.stop());
  const identityEndpoint = await fake.startIdentity();
  const loginServer = await serveFakeLoginServer(fake, {
    dir: files,
    loginServers: [names.hosts.mi, names.hosts.wi],
    azureAd: true,
  });
  ctx.defer(() => loginServer.unmap());

  const json = azureJson(names, acr.user.password);
  const staticJson = join(files, 'azure-static.json');
  const miJson = join(files, 'azure-managed-identity.json');
  await writeFile(staticJson, JSON.stringify(json.static, null, 2), { mode: 0o600 });
  await writeFile(miJson, JSON.stringify(json.mi, null, 2), { mode: 0o600 });
  const config = providerConfig(names, {
    staticJson,
    miJson,
    identityEndpoint,
    identityHeader,
    caFile: loginServer.caFile,
  });
  const plugins: Record<string, string> = {};
  for (const name of Object.values(PROVIDER)) {
    plugins[name] = await installRecordingWrapper({
      binDir: join(ctx.artifactsDir, 'bin'),
      name,
      target: plugin.path,
      logDir,
    });
  }
  return {
    names,
    acr,
    other,
    publicRegistry,
    fake,
    aad,
    identityEndpoint,
    config,
    json: {
      [PROVIDER.static]: json.static,
      [PROVIDER.mi]: json.mi,
      [PROVIDER.sa]: json.static,
      [PROVIDER.wi]: json.mi,
    },
    passwords: { clientSecret: acr.user.password, refreshToken },
    logDir,
    plugins,
  };
}
