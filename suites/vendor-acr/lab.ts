// What the vendor-acr suite starts before any environment exists: the plugin,
// the registries, the fake Azure endpoints (identity, login servers, Azure AD)
// under their names, the azure.json files, and one recording wrapper per
// provider name. Everything is stopped or removed after the suite.
import { randomBytes, randomUUID } from 'node:crypto';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { azureJson, NAMESPACE, PROVIDER, providerConfig, runNames } from './plan.ts';
import type { AcrLab } from './session.ts';
import type { KubeBehaviour } from '../../src/versions/table.ts';
import {
  ACR_PLUGIN_VERSION,
  ACR_RECIPE,
  ACR_TOKEN_USERNAME,
  startPublicRegistry,
  vendorPlugin,
  FakeAzure,
  FakeAzureAd,
  installRecordingWrapper,
  pluginDir,
  redactWrapperLog,
  serveFakeLoginServer,
  startLabRegistry,
  type SuiteSetup,
} from '../../src/run/kit.ts';

/** The plugin, three registries, the fake Azure endpoints and one recording wrapper per provider name; all stopped after the suite. */
export async function startAcrLab(
  ctx: SuiteSetup,
  behaviour: KubeBehaviour,
): Promise<AcrLab & { plugins: Record<string, string> }> {
  const names = runNames(randomBytes(3).toString('hex'), randomUUID);
  // Files the plugin reads (azure.json, the lab CA) and the wrappers' log: in a dir the nodes see.
  const files = await pluginDir(ctx, 'acr-files');
  const logDir = await pluginDir(ctx, 'acr-invocations');
  ctx.defer(async () => {
    await redactWrapperLog(logDir, (t) => ctx.redactor.text(t));
    await cp(logDir, join(ctx.artifactsDir, 'plugin-invocations'), { recursive: true });
  });
  const plugin = await vendorPlugin(ctx, ACR_RECIPE, ACR_PLUGIN_VERSION);
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
  const publicRegistry = await startPublicRegistry(ctx, `acr-mcr-${names.id}`, ['team/app']);

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
  const config = providerConfig(
    names,
    {
      staticJson,
      miJson,
      identityEndpoint,
      identityHeader,
      caFile: loginServer.caFile,
    },
    behaviour,
  );
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
    loginServerAddress: loginServer.address,
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
