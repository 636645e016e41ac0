// The lab the real gke-gcloud-auth-plugin runs in: the fake Google token
// endpoint on loopback, service-account key files whose token_uri names it,
// and kubeconfig users that exec the plugin in ADC mode
// (--use_application_default_credentials, GOOGLE_APPLICATION_CREDENTIALS = a
// key file) behind the exec recording wrapper. The access tokens the fake
// issues go into `book`, the TokenBook credprov's token webhook reviews with,
// so kube-apiserver accepts exactly them (as user credprov:exec:<subject>).
//
// Accounts: one per role, each its own key; `bad-key` carries the viewer's
// email and key id but another private key (the fake must refuse its
// signature), `unknown` an account the fake never heard of. Key files hold
// private keys: 0600 in the lab's dir, never in artifacts (`secrets`).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TokenBook } from '../authn/token-book.ts';
import { noopLogger, type Logger } from '../core/logger.ts';
import { silentProgress, type Progress } from '../core/progress.ts';
import { ensureVendorPlugin, type VendorPluginBinary } from '../plugin/vendors/build.ts';
import { installExecRecordingWrapper } from '../plugin/exec-recording-wrapper.ts';
import { writeUsersKubeconfig } from './users-kubeconfig.ts';
import { activateServiceAccount, findGcloud, gcloudEnv, startCatchAll, type CatchAll } from './gcloud-sdk.ts';
import { startFakeGoogleOAuth, type FakeGoogleOAuth } from '../fake-clouds/google/index.ts';
import { GKE_PLUGIN_RECIPE, GKE_PLUGIN_VERSION, GKE_SCOPES } from '../plugin/vendors/gke-gcloud-auth-plugin.ts';

export const GKE_ACCOUNTS = [
  'viewer',
  'kubectl',
  'client-go',
  'client-node',
  'python',
  'gcloud-a',
  'gcloud-b',
  'bad-key',
  'unknown',
] as const;
export type GkeAccount = (typeof GKE_ACCOUNTS)[number];
/** Accounts whose key the fake knows (bad-key and unknown are not). */
const KNOWN = GKE_ACCOUNTS.filter((a) => a !== 'bad-key' && a !== 'unknown');
export const PROJECT = 'credprov-lab';
export const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
export const V1 = 'client.authentication.k8s.io/v1';
/** The scopes gcloud (Cloud SDK 528) asks for a service account, besides the plugin's. */
export const GCLOUD_SCOPES = [
  'openid',
  'https://www.googleapis.com/auth/appengine.admin',
  'https://www.googleapis.com/auth/sqlservice.login',
  'https://www.googleapis.com/auth/compute',
];
/** GKE's documented kubeconfig user (`gcloud container clusters get-credentials`), plus the ADC flag. */
export const ADC_ARGS = ['--use_application_default_credentials'];

export interface GkeLabOptions {
  /** Private working dir: key files, the wrapper and its run records (holding live tokens). */
  dir: string;
  cacheDir?: string;
  progress?: Progress;
  log?: Logger;
  /** Called with every access token the fake issues (register it with the redactor). */
  onIssue?: (token: string) => void;
  tokenLifetimeMs?: number;
}

export interface GkeLab {
  plugin: VendorPluginBinary;
  fake: FakeGoogleOAuth;
  /** The tokens the fake issued: give it to the token webhook. */
  book: TokenBook;
  /** The TokenBook subject (so the webhook user credprov:exec:<subject>) of each account. */
  subjectOf(account: GkeAccount): string;
  emailOf(account: GkeAccount): string;
  /** The key id (private_key_id) of the account's key file: what each grant's JWS header names. */
  keyIdOf(account: GkeAccount): string;
  keyFileOf(account: GkeAccount): string;
  /** The recording wrapper's run dir for `label` (one per label, so concurrent clients keep their runs apart). */
  runsDir(label: string): string;
  /** A users[].user.exec for `account`, through the wrapper of `label` (or the binary itself: `direct`). */
  execFor(
    account: GkeAccount,
    o?: { label?: string; direct?: boolean; apiVersion?: string },
  ): Promise<Record<string, unknown>>;
  /** A kubeconfig for `server` with one user (and context) per entry; mode 0600. */
  writeKubeconfig(
    file: string,
    cluster: { server: string; caFile?: string; caData?: string },
    users: Record<string, Record<string, unknown>>,
    current?: string,
  ): Promise<string>;
  /**
   * The real gcloud with gcloud-a and gcloud-b activated, each in its own CLOUDSDK_CONFIG
   * (made on first call); undefined when gcloud is not installed.
   */
  gcloud(): Promise<GcloudSetup | undefined>;
  requestLog: string;
  /** The private keys (PEM, and as JSON escapes them): never in any artefact. */
  secrets: string[];
  stop(): Promise<void>;
}

export interface GcloudSetup {
  path: string;
  catchAll: CatchAll;
  configDirOf(account: 'gcloud-a' | 'gcloud-b'): string;
  /** The env that keeps that configuration's gcloud on loopback (exec.env of its kubeconfig user). */
  envOf(account: 'gcloud-a' | 'gcloud-b'): Record<string, string>;
}

export async function startGkeLab(o: GkeLabOptions): Promise<GkeLab> {
  const log = o.log ?? noopLogger;
  const plugin = await ensureVendorPlugin(GKE_PLUGIN_RECIPE, {
    version: GKE_PLUGIN_VERSION,
    progress: o.progress ?? silentProgress,
    log,
    ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
  });
  if (!plugin) throw new Error(`${GKE_PLUGIN_RECIPE.binary} ${GKE_PLUGIN_VERSION} was not built`);
  await mkdir(join(o.dir, 'keys'), { recursive: true, mode: 0o700 });
  const book = new TokenBook({ onIssue: o.onIssue ?? (() => {}) });
  const requestLog = join(o.dir, 'fake-google-requests.jsonl');
  const fake = await startFakeGoogleOAuth({
    book,
    scopes: [...GKE_SCOPES, ...GCLOUD_SCOPES],
    requestLog,
    onIdToken: o.onIssue ?? (() => {}),
    ...(o.tokenLifetimeMs !== undefined ? { tokenLifetimeMs: o.tokenLifetimeMs } : {}),
  });
  const secrets: string[] = [];
  const email = (a: GkeAccount) => `gke-${a === 'bad-key' ? 'viewer' : a}@${PROJECT}.iam.gserviceaccount.com`;
  const keyIds = new Map<GkeAccount, string>();
  for (const a of GKE_ACCOUNTS) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    secrets.push(pem, JSON.stringify(pem).slice(1, -1), pem.split('\n').slice(1, -2).join(''));
    const keyId = a === 'bad-key' ? keyIds.get('viewer')! : randomBytes(20).toString('hex');
    keyIds.set(a, keyId);
    if ((KNOWN as readonly string[]).includes(a))
      fake.addAccount({
        email: email(a),
        keyId,
        publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        subject: `gke-${a}`,
      });
    // A key file as the IAM console downloads it, minus Google's URLs the plugin never calls.
    const file = {
      type: 'service_account',
      project_id: PROJECT,
      private_key_id: keyId,
      private_key: pem,
      client_email: email(a),
      client_id: String(100000000000000000000n + BigInt(GKE_ACCOUNTS.indexOf(a))),
      token_uri: fake.tokenUri,
    };
    await writeFile(join(o.dir, 'keys', `${a}.json`), `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  }
  const wrappers = new Map<string, string>();
  const runsDir = (label: string) => join(o.dir, 'runs', label);
  const wrapper = async (label: string) => {
    let path = wrappers.get(label);
    if (!path) {
      await mkdir(join(o.dir, 'bin', label), { recursive: true, mode: 0o700 });
      path = await installExecRecordingWrapper({
        path: join(o.dir, 'bin', label, GKE_PLUGIN_RECIPE.binary),
        target: plugin.path,
        logDir: runsDir(label),
      });
      wrappers.set(label, path);
    }
    return path;
  };
  let gcloudSetup: Promise<GcloudSetup | undefined> | undefined;
  let catchAll: CatchAll | undefined;
  const setUpGcloud = async (): Promise<GcloudSetup | undefined> => {
    const path = await findGcloud();
    if (!path) return undefined;
    catchAll = await startCatchAll(join(o.dir, 'gcloud-catch-all.jsonl'));
    const ca = catchAll;
    const configDirOf = (a: 'gcloud-a' | 'gcloud-b') => join(o.dir, 'gcloud', a);
    const envOf = (a: 'gcloud-a' | 'gcloud-b') =>
      gcloudEnv({ configDir: configDirOf(a), tokenUri: fake.tokenUri, catchAll: ca.hostPort });
    for (const a of ['gcloud-a', 'gcloud-b'] as const) {
      await mkdir(configDirOf(a), { recursive: true, mode: 0o700 });
      await activateServiceAccount(path, join(o.dir, 'keys', `${a}.json`), envOf(a));
    }
    return { path, catchAll: ca, configDirOf, envOf };
  };
  return {
    plugin,
    fake,
    book,
    gcloud: () => (gcloudSetup ??= setUpGcloud()),
    subjectOf: (a) => `gke-${a === 'bad-key' ? 'viewer' : a}`,
    emailOf: email,
    keyIdOf: (a) => keyIds.get(a)!,
    keyFileOf: (a) => join(o.dir, 'keys', `${a}.json`),
    runsDir,
    async execFor(account, x = {}) {
      return {
        apiVersion: x.apiVersion ?? V1BETA1,
        command: x.direct ? plugin.path : await wrapper(x.label ?? 'default'),
        args: ADC_ARGS,
        env: [{ name: 'GOOGLE_APPLICATION_CREDENTIALS', value: join(o.dir, 'keys', `${account}.json`) }],
        installHint: 'gke-gcloud-auth-plugin is built by credprov (src/plugin/vendors/gke-gcloud-auth-plugin.ts)',
        provideClusterInfo: true,
        interactiveMode: 'Never',
      };
    },
    writeKubeconfig: (file, cluster, users, current) =>
      writeUsersKubeconfig(
        file,
        cluster,
        Object.fromEntries(Object.entries(users).map(([name, exec]) => [name, { exec }])),
        current,
      ),
    requestLog,
    secrets,
    async stop() {
      await fake.stop();
      await catchAll?.stop();
    },
  };
}

/** The certify users: the binary itself in ADC mode with the viewer's key; GKE's v1beta1 kubeconfig, and v1. */
export const GKE_CERTIFY_USERS = { v1beta1: 'gke-gcloud-auth-plugin', v1: 'gke-gcloud-auth-plugin-v1' } as const;

/** A kubeconfig for `certify exec-plugin`: no cluster is contacted (the server only fills spec.cluster). */
export async function writeGkeCertifyKubeconfig(lab: GkeLab, file: string): Promise<string> {
  return lab.writeKubeconfig(
    file,
    { server: 'https://kubernetes.credprov.test:6443' },
    {
      [GKE_CERTIFY_USERS.v1beta1]: await lab.execFor('viewer', { direct: true }),
      [GKE_CERTIFY_USERS.v1]: await lab.execFor('viewer', { direct: true, apiVersion: V1 }),
    },
  );
}
