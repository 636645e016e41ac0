// What the vendor-gcp suite starts before any environment exists, for the
// real auth-provider-gcp under the kubelet: the plugin (cached build), one
// recording wrapper per provider name, fake GCE (the metadata server, a storage
// endpoint, and Google's registry login rule), Google's registries as two
// token-auth registries whose token services accept exactly the access tokens
// the metadata server minted (gcr.io; Artifact Registry), and a private
// htpasswd registry for the dockercfg flows. route() makes the image hosts and
// the metadata server's name (metadata.google.internal, plain http on port 80)
// reach them from every node. Everything is stopped after the suite.
import { randomBytes } from 'node:crypto';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { Auth, busyboxImage, processProvider, type StartedRegistry, type User } from '../../registry/index.ts';
import {
  FakeGce,
  GOOGLE_REGISTRY_USERNAMES,
  type MetadataRecord,
  type RegistryLogin,
} from '../fake-clouds/google/index.ts';
import { GCE_METADATA_HOST } from '../model/auth-provider-gcp.ts';
import {
  invocationEvidence,
  installRecordingWrapper,
  readWrappedInvocations,
  redactWrapperLog,
  type WrappedInvocation,
} from '../plugin/recording-wrapper.ts';
import { AUTH_PROVIDER_GCP_RECIPE, AUTH_PROVIDER_GCP_VERSION } from '../plugin/vendors/auth-provider-gcp.ts';
import type { Evidence } from '../report/model.ts';
import { startLabRegistry, type LabRegistry } from '../run/lab.ts';
import { pluginDir } from '../run/plugin-dir.ts';
import { reachFromPlugins, routeRegistry, type RouteTarget } from '../run/registry-routes.ts';
import type { SuiteSetup } from '../run/suite.ts';
import { vendorPlugin } from '../run/vendor-plugins.ts';

export { AUTH_PROVIDER_GCP_VERSION } from '../plugin/vendors/auth-provider-gcp.ts';
export type { MetadataRecord, RegistryLogin, WrappedInvocation };

export interface GcpLabOptions {
  /** One recording wrapper per provider entry name. */
  providers: string[];
  email: string;
  tokenLifetimeS: number;
  refreshBeforeS: number;
  /** Repositories the marker image is pushed as, per registry. */
  repositories: { gcr: string[]; ar: string[]; private: string[] };
  /** The google-dockercfg attribute and google-dockercfg-url object, from the private registry's login. */
  dockercfgs(login: { username: string; password: string }): { attribute: string; urlObject: string };
  /** Where the storage endpoint serves the URL object. */
  urlObject: string;
}

export interface GcpLab {
  /** The wrapper of each provider name: spec.credentialProvider.plugins. */
  plugins: Record<string, string>;
  fake: FakeGce;
  gcr: StartedRegistry;
  ar: StartedRegistry;
  private: LabRegistry;
  /** The private registry's login the dockercfg attribute and object carry. */
  privateLogin: User;
  /** The URL the google-dockercfg-url attribute names. */
  dockercfgUrl: string;
  execs(): Promise<WrappedInvocation[]>;
  metadata(): MetadataRecord[];
  logins(): RegistryLogin[];
  /** Each image host to the registry that answers as it, and metadata.google.internal to the fake, on every node. */
  route(
    run: RouteTarget,
    hosts: { gcr: readonly string[]; ar: readonly string[]; private: readonly string[] },
  ): Promise<void>;
  /** A window's plugin execs, metadata requests and registry logins as evidence. */
  evidence(w: { execs: WrappedInvocation[]; metadata: MetadataRecord[]; logins: RegistryLogin[] }): Evidence[];
}

/**
 * A token-auth registry's token service as Google's (gcr.io, docker.pkg.dev): the access-token login, decided by
 * the fake that minted the tokens. Any other user name goes to the registry's own users (the harness's admin, who
 * pushes the images).
 */
export function acceptGoogleLogins(registry: StartedRegistry, fake: FakeGce, service: string): void {
  registry.tokenServer!.useAuthenticator(async (username, password) => {
    if (!(GOOGLE_REGISTRY_USERNAMES as readonly string[]).includes(username)) return 'pass';
    return fake.logins.decide(service, username, password).verdict === 'accepted'
      ? { username, password, access: [{ repository: '*', actions: ['pull'] }] }
      : undefined;
  });
}

export async function startGcpLab(ctx: SuiteSetup, o: GcpLabOptions): Promise<GcpLab> {
  const logDir = await pluginDir(ctx, 'gcp-invocations');
  ctx.defer(async () => {
    await redactWrapperLog(logDir, (t) => ctx.redactor.text(t));
    await cp(logDir, join(ctx.artifactsDir, 'plugin-invocations'), { recursive: true });
  });
  const plugin = await vendorPlugin(ctx, AUTH_PROVIDER_GCP_RECIPE, AUTH_PROVIDER_GCP_VERSION);
  const fake = new FakeGce({
    email: o.email,
    tokenLifetimeS: o.tokenLifetimeS,
    refreshBeforeS: o.refreshBeforeS,
    onSecret: (t) => ctx.redactor.add(t),
    logFile: join(ctx.artifactsDir, 'fake-gce-requests.jsonl'),
    loginLogFile: join(ctx.artifactsDir, 'google-registry-logins.jsonl'),
  });
  ctx.defer(() => fake.stop());
  const endpoints = await fake.start();
  const image = await busyboxImage({ marker: `credprov-gcp-${randomBytes(3).toString('hex')}` });
  const googleRegistry = async (service: string, repositories: string[]) => {
    const registry = await ctx.own(
      processProvider({ logger: ctx.log }).start({
        name: `gcp-${service.replace(/\W+/g, '-')}-${randomBytes(3).toString('hex')}`,
        auth: Auth.token({ users: [] }),
        tls: true,
        logger: ctx.log,
        progress: ctx.progress,
      }),
    );
    acceptGoogleLogins(registry, fake, service);
    for (const r of repositories) await registry.push(image, { name: r, tag: 'v1' });
    return registry;
  };
  const [gcr, ar, priv] = await Promise.all([
    googleRegistry('gcr.io', o.repositories.gcr),
    googleRegistry('docker.pkg.dev', o.repositories.ar),
    ctx.own(startLabRegistry(ctx, 'gcp-private')),
  ]);
  for (const r of o.repositories.private) await priv.push(r);
  const cfg = o.dockercfgs(priv.user);
  fake.setAttribute('google-dockercfg', cfg.attribute);
  fake.putObject(o.urlObject, cfg.urlObject);
  const dockercfgUrl = `${endpoints.storageUrl}/${o.urlObject}`;
  fake.setAttribute('google-dockercfg-url', dockercfgUrl);
  const plugins: Record<string, string> = {};
  for (const name of o.providers)
    plugins[name] = await installRecordingWrapper({
      binDir: join(ctx.artifactsDir, 'bin'),
      name,
      target: plugin.path,
      logDir,
    });
  return {
    plugins,
    fake,
    gcr,
    ar,
    private: priv,
    privateLogin: priv.user,
    dockercfgUrl,
    execs: () => readWrappedInvocations(logDir),
    metadata: () => fake.requests(),
    logins: () => fake.logins.logins(),
    async route(run, hosts) {
      for (const h of hosts.gcr) ctx.defer((await routeRegistry(run, gcr, h)).stop);
      for (const h of hosts.ar) ctx.defer((await routeRegistry(run, ar, h)).stop);
      for (const h of hosts.private) await priv.serveAs(run, h);
      const reach = await reachFromPlugins(
        run,
        [endpoints.metadataUrl, endpoints.storageUrl],
        [{ hostname: GCE_METADATA_HOST.replace(/\.$/, ''), address: endpoints.metadataAddress }],
      );
      ctx.defer(() => reach.stop());
    },
    evidence: (w) => [
      invocationEvidence(logDir, w.execs),
      { kind: 'data', label: 'fake GCE metadata requests (tokens as fingerprints)', data: w.metadata },
      { kind: 'data', label: "Google registry logins (the token services' decisions)", data: w.logins },
    ],
  };
}
