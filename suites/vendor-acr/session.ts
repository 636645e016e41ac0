// What the vendor-acr cases share while they run, one after another: the
// pods they create (each with the plugin execs and Azure requests of its own
// window, which is why the cases never run side by side), how those read in
// messages and evidence, and what the plugin's answers look like with their
// passwords named instead of shown.
import { createHash } from 'node:crypto';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { images, POD_TIMEOUT_MS, type RunNames } from './plan.ts';
import { entryShown, type AnswerView } from './predict.ts';
import {
  AAD_HOST,
  clusterOidc,
  execsOf,
  invocationEvidence,
  reachFromPlugins,
  readWrappedInvocations,
  routeRegistry,
  runPodWatching,
  type AzureJson,
  type Evidence,
  type FakeAzure,
  type FakeAzureAd,
  type FakeAzureRequest,
  type LabRegistry,
  type PodRun,
  type StartedRegistry,
  type SuiteRun,
  type WrappedInvocation,
} from '../../src/run/kit.ts';

/** What prepare started for the run. */
export interface AcrLab {
  names: RunNames;
  /** Accepts the service principal and the exchanged refresh token; serves the sp, sa and mi login servers. */
  acr: LabRegistry;
  /** Accepts neither: serves the azurecr.cn login server. */
  other: LabRegistry;
  /** No auth: serves mcr.microsoft.com (public, like the real one). */
  publicRegistry: StartedRegistry;
  fake: FakeAzure;
  /** Trusts the cluster's service-account issuer once it is up (openSession). */
  aad: FakeAzureAd;
  identityEndpoint: string;
  /** The loopback address (port 443) the fake login servers and Azure AD answer on, under their names. */
  loginServerAddress: string;
  config: CredentialProviderConfig;
  /** azure.json per provider name. */
  json: Record<string, AzureJson>;
  /** Passwords by what they are, to name them in an answer. */
  passwords: { clientSecret: string; refreshToken: string };
  logDir: string;
}

/** What one pod did, with the plugin execs and Azure requests that happened meanwhile. */
export interface Window {
  run: PodRun;
  execs: WrappedInvocation[];
  azure: FakeAzureRequest[];
}

export interface Session {
  run: SuiteRun;
  lab: AcrLab;
  images: ReturnType<typeof images>;
  pod(label: string, ref: string, o?: { serviceAccountName?: string }): Promise<Window>;
  windowEvidence(windows: Window[]): Evidence[];
  /** The answer of `provider`'s exec in a window, passwords named ("client secret", "refresh token", "empty"). */
  answerOf(w: Window, provider: string): AnswerView | undefined;
}

/** Routes the login servers to the lab registries, lets the plugin reach the fake identity endpoint, and opens the session. */
export async function openSession(run: SuiteRun, lab: AcrLab): Promise<Session> {
  const env = run.environment;
  const h = lab.names.hosts;
  for (const host of [h.sp, h.mi, h.wi, h.sa]) await lab.acr.serveAs(run, host);
  await lab.other.serveAs(run, h.cn);
  const mcr = await routeRegistry(run, lab.publicRegistry, h.mcr);
  run.defer(() => mcr.stop());
  const reach = await reachFromPlugins(run, [lab.identityEndpoint]);
  run.defer(() => reach.stop());
  // The managed-identity and workload-identity plugins call the login server (its /v2/ challenge) and Azure AD by name.
  const address = lab.loginServerAddress;
  const byName = [h.mi, h.wi, AAD_HOST].map((hostname) => ({ hostname, address }));
  const login = await reachFromPlugins(run, [`https://${address}:443/`], byName);
  run.defer(() => login.stop());
  lab.aad.trustOidc(await clusterOidc(env));
  const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 12);
  const named = new Map([
    [sha(''), 'empty'],
    [sha(lab.passwords.clientSecret), 'client secret'],
    [sha(lab.passwords.refreshToken), 'refresh token'],
  ]);
  let seq = 0;
  return {
    run,
    lab,
    images: images(lab.names),
    async pod(label, ref, o = {}) {
      const name = `acr-${label}-${lab.names.id}-${++seq}`;
      const pod = { name, image: ref, pullPolicy: 'Always' as const, timeoutMs: POD_TIMEOUT_MS, ...o };
      const logs = { execs: () => readWrappedInvocations(lab.logDir), azure: () => lab.fake.requests() };
      const w = await runPodWatching(env, pod, logs);
      return { run: w.run, ...w.added };
    },
    answerOf(w, provider) {
      const r = w.execs.find((i) => i.provider === provider)?.response;
      if (!r) return undefined;
      const auth = Object.fromEntries(
        Object.entries(r.auth ?? {}).map(([k, user]) => {
          const hash = r.passwordSha256?.[k] ?? '';
          return [k, entryShown(user, named.get(hash) ?? `another password (sha256 ${hash})`)];
        }),
      );
      return { cacheKeyType: r.cacheKeyType ?? '', cacheDuration: r.cacheDuration ?? '(absent)', auth };
    },
    windowEvidence: (windows) => [
      invocationEvidence(
        lab.logDir,
        windows.flatMap((w) => w.execs),
      ),
      {
        kind: 'data',
        label: 'fake Azure requests (identity endpoint, ACR login server)',
        data: windows.flatMap((w) => w.azure),
      },
      ...windows.flatMap((w) => w.run.evidence),
    ],
  };
}

export const showAzure = (r: FakeAzureRequest): string =>
  r.endpoint === 'identity'
    ? `token for ${r.resource ?? '?'} → ${r.status}`
    : `${r.method} ${r.path} → ${r.status}${r.error ? ` (${r.error})` : ''}`;

export const pullShown = (r: PodRun): string =>
  r.pull === 'success' ? 'pull success' : `pull failure (${r.failure ?? 'unknown'})`;

/** How many times `provider` ran in a window. */
export const execsIn = (w: Window, provider: string): number => execsOf(w.execs, provider);
