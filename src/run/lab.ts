// What the kubelet suites share: one authenticated registry (htpasswd + TLS)
// that stands in for any image host, a fleet of recording fake providers, and
// pods whose pull result is read back with their events. A suite says which
// images and providers it wants; the lab makes them real and cleans up.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  Auth,
  type BuiltImage,
  busyboxImage,
  generatedUser,
  processProvider,
  type ProxyOptions,
  type RecordingProxy,
  type RegistryRequest,
  registryRequests,
  type StartedRegistry,
  startRecordingProxy,
  type User,
} from '../../registry/index.ts';
import type { CredentialProviderConfig, TokenAttributes } from '../api/credentialprovider/types.ts';
import type { PartialSpec } from '../api/spec/defaults.ts';
import type { Environment, RegistryRouteHandle } from '../cluster/provider.ts';
import { mapPool } from '../core/pool.ts';
import { pluginDir } from './plugin-dir.ts';
import type { Rule, ScenarioFile } from '../plugin/fake-provider-scenario.ts';
import { installFakeProvider, readFakeInvocations, type FakeInvocation } from '../plugin/fake-provider.ts';

export type { FakeInvocation, ScenarioFile };
export { validateScenario } from '../plugin/fake-provider-scenario.ts';
import type { Evidence } from '../report/model.ts';
import {
  createPod,
  deletePod,
  logExcerpt,
  podEvents,
  waitForPodOutcome,
  type PodEvent,
  type PodOptions,
  type PodOutcome,
} from './pods.ts';
import type { SuiteSetup } from './suite.ts';
import { routeRegistry, type MirrorOf, type RouteTarget } from './registry-routes.ts';

export interface LabRegistry {
  registry: StartedRegistry;
  /** The account whose password the fakes hand out. */
  user: User;
  /** A second account, for "wrong credentials" (a valid user name, a password the registry refuses). */
  wrongPassword: string;
  marker: string;
  /** Pushes the marker image as `<registry>/<repository>:<tag>`; returns the repository's path (without host). */
  push(repository: string, tag?: string): Promise<string>;
  /** The marker image's manifest digest (the same under every name it is pushed as). */
  digest(): Promise<string>;
  /** Pushes images of the suite's own (variants, a matrix's cells) as `<repository>:<tag>`, `concurrency` at a time. */
  pushImages(
    images: Array<{ image: BuiltImage; repository: string; tag: string }>,
    concurrency?: number,
  ): Promise<void>;
  /** Routes pulls of `imageHost` (docker.io, a.reg.test, reg.test:443 …) to this registry on every node (capability hostRegistries); `mirrors` are tried first. */
  serveAs(run: RouteTarget, imageHost: string, o?: { mirrors?: MirrorOf[] }): Promise<void>;
  /** The requests the registry answered, with the credential each carried (a user name or none, never the secret), from its own log. */
  requests(): Promise<RegistryRequest[]>;
  /**
   * A recording reverse proxy in front of the registry (same address and CA,
   * another port): route pulls to it to learn which credential each request
   * carried, as distribution's own log names no accepted user. Its log is
   * `<name>.requests.jsonl` in the suite's artifacts; stopped with the lab.
   * `o.delayMs` holds the requests it names (slow pulls that overlap).
   */
  recorded(name: string, o?: ProxyOptions): Promise<RecordingProxy>;
  /** `keepLogAs`: first copy the registry's log (who authenticated, in what order), redacted, to this name in the suite's artifacts. */
  stop(o?: { keepLogAs?: string }): Promise<void>;
}

export async function startLabRegistry(
  ctx: SuiteSetup,
  name: string,
  o: { username?: string; user?: User } = {},
): Promise<LabRegistry> {
  // `username`: the account name the fakes hand out (ECR tokens always say AWS); default the lab's name.
  // `user`: another lab's account, so this registry accepts the same login (a replica or mirror sharing accounts).
  const user = o.user ?? generatedUser(o.username ?? name);
  const wrongPassword = randomBytes(12).toString('hex');
  ctx.redactor.add(user.password);
  ctx.redactor.add(wrongPassword);
  const registry = await processProvider({ logger: ctx.log }).start({
    name: `${name}-${randomBytes(3).toString('hex')}`,
    auth: Auth.htpasswd([user]),
    tls: true,
    logger: ctx.log,
    progress: ctx.progress,
  });
  const marker = `credprov-${name}-${randomBytes(3).toString('hex')}`;
  let image: BuiltImage | undefined;
  const routed: RegistryRouteHandle[] = [];
  const proxies: RecordingProxy[] = [];
  return {
    registry,
    user,
    wrongPassword,
    marker,
    async push(repository, tag = 'v1') {
      image ??= await busyboxImage({ marker });
      await registry.push(image, { name: repository, tag });
      return repository;
    },
    async digest() {
      image ??= await busyboxImage({ marker });
      return image.manifest.digest;
    },
    async pushImages(images, concurrency = 8) {
      const client = registry.client(registry.admin);
      const pushed = await mapPool(images, concurrency, (i) => client.push(i.image, i.repository, i.tag));
      const failed = pushed.find((p) => p.status === 'rejected');
      if (failed) throw failed.reason;
    },
    async serveAs(run, imageHost, so = {}) {
      routed.push(await routeRegistry(run, registry, imageHost, so));
    },
    async recorded(proxyName, po = {}) {
      const proxy = await startRecordingProxy(registry, join(ctx.artifactsDir, `${proxyName}.requests.jsonl`), po);
      proxies.push(proxy);
      return proxy;
    },
    async requests() {
      const text = await readFile(registry.logFile, 'utf8').catch(() => '');
      return registryRequests(text, { auth: registry.auth.mode === 'token' ? 'token' : 'htpasswd' });
    },
    async stop(so = {}) {
      if (so.keepLogAs) {
        const text = await readFile(registry.logFile, 'utf8').catch(() => undefined);
        if (text !== undefined)
          await writeFile(join(ctx.artifactsDir, so.keepLogAs), ctx.redactor.text(text)).catch(() => {});
      }
      await Promise.all(routed.splice(0).map((r) => r.stop()));
      await Promise.all(proxies.splice(0).map((p) => p.stop()));
      await registry.stop();
    },
  };
}

/**
 * A registry without auth, standing in for a public one (mcr.microsoft.com):
 * a pull with no credentials succeeds. The marker image under `repositories`
 * (tag v1); stopped after the suite.
 */
export async function startPublicRegistry(
  ctx: SuiteSetup,
  name: string,
  repositories: string[],
): Promise<StartedRegistry> {
  const registry = await ctx.own(
    processProvider({ logger: ctx.log }).start({
      name,
      auth: Auth.none(),
      tls: true,
      logger: ctx.log,
      progress: ctx.progress,
    }),
  );
  const image = await busyboxImage({ marker: `credprov-${name}` });
  for (const repository of repositories) await registry.push(image, { name: repository, tag: 'v1' });
  return registry;
}

/** One fake provider of a fleet: its config entry and its scenario (src/plugin/fake-provider-scenario.ts). */
export interface FleetMember {
  name: string;
  matchImages: string[];
  defaultCacheDuration?: string;
  apiVersion?: string;
  /** KEP-4412 service-account token mode: copied into the provider's config entry as is. */
  tokenAttributes?: TokenAttributes;
  scenario: ScenarioFile;
}

/**
 * The fleet for a provider config a plan already states (its predictions read
 * the same config): each provider entry, with its scenario by name. A provider
 * without a scenario is an error, so plan and fleet cannot drift apart.
 */
export function fleetMembers(
  config: Pick<CredentialProviderConfig, 'providers'>,
  scenarios: Record<string, ScenarioFile>,
): FleetMember[] {
  return config.providers.map((p) => {
    const scenario = scenarios[p.name];
    if (!scenario)
      throw new Error(
        `provider ${p.name} of the plan has no scenario (scenarios for: ${Object.keys(scenarios).join(', ')})`,
      );
    return {
      name: p.name,
      matchImages: p.matchImages,
      defaultCacheDuration: p.defaultCacheDuration,
      apiVersion: p.apiVersion,
      ...(p.tokenAttributes ? { tokenAttributes: p.tokenAttributes } : {}),
      scenario,
    };
  });
}

export interface Fleet {
  /** The spec fragment: plugins and the CredentialProviderConfig, in the members' order. */
  spec: PartialSpec;
  config: CredentialProviderConfig;
  logFile: string;
  invocations(): Promise<FakeInvocation[]>;
  /** Replaces a member's scenario (the next exec reads it). */
  rescript(name: string, scenario: ScenarioFile): Promise<void>;
  /** Rewrites scenario files and the request log with secrets redacted (they held passwords in clear for the fakes). */
  redactArtifacts(): Promise<void>;
}

export async function prepareFleet(
  ctx: SuiteSetup,
  members: FleetMember[],
  o: { kubeletConfig?: Record<string, unknown> } = {},
): Promise<Fleet> {
  // In the exchange dir, not the artifacts: kind nodes mount it at the same path, and the plugin runs there.
  // redactArtifacts() copies the files into the artifacts, redacted.
  const dir = await pluginDir(ctx, basename(ctx.artifactsDir));
  const keptAs = join(ctx.artifactsDir, 'fakes');
  const logFile = join(dir, 'plugin-invocations.jsonl');
  await rm(keptAs, { recursive: true, force: true });
  const scenarioFile = (name: string) => join(dir, `${name}.scenario.json`);
  const plugins: Record<string, string> = {};
  for (const m of members) {
    await writeFile(scenarioFile(m.name), JSON.stringify(m.scenario, null, 2));
    plugins[m.name] = await installFakeProvider({
      binDir: join(dir, 'bin'),
      name: m.name,
      scenarioFile: scenarioFile(m.name),
      logFile,
    });
  }
  const config: CredentialProviderConfig = {
    apiVersion: 'kubelet.config.k8s.io/v1',
    kind: 'CredentialProviderConfig',
    providers: members.map((m) => ({
      name: m.name,
      apiVersion: m.apiVersion ?? 'credentialprovider.kubelet.k8s.io/v1',
      matchImages: m.matchImages,
      defaultCacheDuration: m.defaultCacheDuration ?? '0s',
      ...(m.tokenAttributes ? { tokenAttributes: m.tokenAttributes } : {}),
    })),
  } as CredentialProviderConfig;
  return {
    spec: {
      credentialProvider: { plugins, config: config as unknown as Record<string, unknown> },
      ...(o.kubeletConfig ? { kubelet: { config: o.kubeletConfig } } : {}),
    },
    config,
    logFile,
    invocations: () => readFakeInvocations(logFile),
    async rescript(name, scenario) {
      const tmp = `${scenarioFile(name)}.tmp`;
      await writeFile(tmp, JSON.stringify(scenario, null, 2));
      await rename(tmp, scenarioFile(name));
    },
    async redactArtifacts() {
      await mkdir(keptAs, { recursive: true });
      for (const f of (await readdir(dir).catch(() => [] as string[])).filter(
        (n) => n.endsWith('.json') || n.endsWith('.jsonl'),
      )) {
        const text = await readFile(join(dir, f), 'utf8').catch(() => undefined);
        if (text !== undefined) await writeFile(join(keptAs, f), ctx.redactor.text(text));
      }
    },
  };
}

/**
 * A fake's scenario: for images matching `match` (kubelet-style patterns, as a
 * vendor plugin knows its registries) it answers `auth`, whose keys may use
 * {registry} and {image}; other images get the fake's "no credentials" exit 1.
 */
export function answer(
  match: string[],
  auth: Record<string, { username: string; password: string }>,
  o: { cacheKeyType?: string; cacheDuration?: string | null; delay?: string } = {},
): ScenarioFile & { rules: Rule[] } {
  return {
    rules: [
      {
        match,
        auth,
        cacheKeyType: o.cacheKeyType ?? 'Image',
        ...(o.cacheDuration === null ? {} : { cacheDuration: o.cacheDuration ?? '0s' }),
        ...(o.delay ? { delay: o.delay } : {}),
      },
    ],
  };
}

export type PullResult = 'success' | 'failure';

export interface PodRun {
  name: string;
  outcome: PodOutcome;
  pull: PullResult;
  /** Why a pull failed, from the kubelet's Failed event: `unauthorized` (the registry refused the credentials, or none) or the message itself. */
  failure?: string;
  events: PodEvent[];
  evidence: Evidence[];
}

/** Creates a pod, waits until its container ran or its pull failed, and returns both with the pod's events as evidence. Deletes it unless `keep`. */
export async function runPod(
  env: Environment,
  o: PodOptions & { timeoutMs?: number; keep?: boolean },
): Promise<PodRun> {
  await createPod(env, o);
  try {
    const outcome = await waitForPodOutcome(env, o.name, o.timeoutMs ?? 90_000, o.namespace);
    const events = await podEvents(env, o.name, o.namespace);
    const pull: PullResult = outcome.kind === 'completed' ? 'success' : 'failure';
    const failure = pull === 'failure' ? pullFailure(events, outcome) : undefined;
    return {
      name: o.name,
      outcome,
      pull,
      ...(failure ? { failure } : {}),
      events,
      evidence: [{ kind: 'event', label: `events of pod ${o.name} (${o.image})`, data: events }],
    };
  } finally {
    if (!o.keep) await deletePod(env, o.name, o.namespace);
  }
}

/** `unauthorized` when the registry refused the pull's credentials (or their absence); otherwise the kubelet's message, so a routing or image error is never mistaken for an auth refusal. */
export function pullFailure(events: PodEvent[], outcome: PodOutcome): string {
  const messages = [
    ...events.filter((e) => e.reason === 'Failed').map((e) => e.message),
    outcome.kind === 'pull-failed' ? outcome.message : '',
  ];
  if (
    messages.some((m) =>
      /401 Unauthorized|authorization failed|no basic auth credentials|unauthorized: authentication required/i.test(m),
    )
  )
    return 'unauthorized';
  return (
    messages.find((m) => m && !/^Error: (ErrImagePull|ImagePullBackOff)$/.test(m)) ??
    messages.find(Boolean) ??
    'unknown'
  )
    .replace(/\s+/g, ' ')
    .slice(0, 300);
}

/** Kubelet log lines about credential providers, for a failing case's evidence. */
export async function kubeletEvidence(env: Environment, needles: string[]): Promise<Evidence[]> {
  const ex = await logExcerpt(env, 'kubelet', needles);
  return ex ? [{ kind: 'log', label: 'kubelet log excerpt', file: ex.file, text: ex.text }] : [];
}
