// The kubelogin lab: credprov's OIDC issuer with its OAuth2 token endpoint
// (src/authn/oidc-issuer.ts, oauth-token-endpoint.ts) on the environment's
// webhook address, as the identity provider the real kubelogin logs in to and
// whose JWTs kube-apiserver's structured JWT authenticator accepts; the real
// `kubectl-oidc_login` behind the exec recording wrapper, under its own name in
// a bin dir, so `kubectl oidc-login get-token …` (upstream's kubeconfig form)
// finds it; a second CA that did not sign the issuer's certificate. Passwords
// and the client secrets are random per lab and handed to the redactor.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecConfig } from '../api/exec/types.ts';
import { clientSubject, type OAuthClient, type OAuthUser } from '../authn/oauth-token-endpoint.ts';
import { startOidcIssuer, type StartedOidcIssuer } from '../authn/oidc-issuer.ts';
import type { TokenWebhookFiles } from '../authn/webhook-files.ts';
import type { Logger } from '../core/logger.ts';
import type { Progress } from '../core/progress.ts';
import { createCA } from '../core/tls.ts';
import { ensureVendorPlugin, type VendorPluginBinary } from '../plugin/vendors/build.ts';
import { installExecRecordingWrapper } from '../plugin/exec-recording-wrapper.ts';
import { KUBELOGIN, KUBELOGIN_RECIPE, KUBELOGIN_VERSION } from '../plugin/vendors/kubelogin.ts';

/** The password client (a user's kubectl) and the client-credentials client (a robot). */
export const LAB_CLIENT_IDS = { user: 'credprov-kubelogin', robot: 'credprov-kubelogin-robot' } as const;
/** The access_token's audience: a resource other than the API server's, as most providers issue it. */
export const ACCESS_TOKEN_AUDIENCE = 'credprov-kubelogin-api';
export const ID_TOKEN_LIFETIME_SEC = 3600;
export const ACCESS_TOKEN_LIFETIME_SEC = 3600;
/** Users whose id_token lives this long, for the refresh cases. */
export const SHORT_ID_TOKEN_SEC = 6;
export const LAB_USERS = ['alice', 'bob', 'carol'] as const;
export type LabUser = (typeof LAB_USERS)[number];
/** bob and carol have short-lived id_tokens (refresh, revoked refresh). */
const SHORT_LIVED: readonly LabUser[] = ['bob', 'carol'];

export interface KubeloginExec {
  grant: 'password' | 'client-credentials';
  user?: LabUser;
  /** A token cache dir of its own (kubelogin keys its cache by issuer, client, user and TLS options). */
  cacheDir: string;
  useAccessToken?: boolean;
  /** Which CA kubelogin trusts for the issuer (--certificate-authority), or none at all (--insecure-skip-tls-verify). */
  ca?: 'issuer' | 'other' | 'skip-verify';
  apiVersion?: 'v1' | 'v1beta1';
  /** Present a client secret that is not the client's. */
  wrongSecret?: boolean;
  /** Exec the binary itself (certify), not `kubectl oidc-login` through the wrapper. */
  direct?: boolean;
}

export interface KubeloginLab {
  issuer: StartedOidcIssuer;
  plugin: VendorPluginBinary;
  /** Where the recording wrapper keeps each run. */
  runsDir: string;
  /** The audiences kube-apiserver must accept: the client ids (an id_token's aud). */
  apiServerAudiences: string[];
  clients: Record<keyof typeof LAB_CLIENT_IDS, OAuthClient>;
  users: Record<LabUser, OAuthUser>;
  /** Every secret the lab made (passwords, client secrets); tokens go to onSecret as they are issued. */
  secrets: string[];
  /** The sub the issuer puts in a token for this exec plan. */
  subjectOf(e: Pick<KubeloginExec, 'grant' | 'user'>): string;
  execFor(e: KubeloginExec): ExecConfig;
  setKubectl(path: string): void;
  stop(): Promise<void>;
}

export interface KubeloginLabOptions {
  dir: string;
  /** The environment's webhook files: the issuer listens where the API server's AuthenticationConfiguration points. */
  files: TokenWebhookFiles;
  /** The kubectl whose plugin mechanism runs kubelogin (or setKubectl later, when the environment is up). */
  kubectl?: string;
  onSecret(secret: string): void;
  cacheDir?: string;
  progress?: Progress;
  log?: Logger;
}

const secret = (n = 18) => randomBytes(n).toString('base64url');

export async function startKubeloginLab(o: KubeloginLabOptions): Promise<KubeloginLab> {
  const plugin = await ensureVendorPlugin(KUBELOGIN_RECIPE, {
    version: KUBELOGIN_VERSION,
    ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
    ...(o.progress ? { progress: o.progress } : {}),
    ...(o.log ? { log: o.log } : {}),
  });
  if (!plugin) throw new Error(`${KUBELOGIN} ${KUBELOGIN_VERSION} was neither cached nor built`);
  const binDir = join(o.dir, 'bin');
  const runsDir = join(o.dir, 'runs');
  await mkdir(binDir, { recursive: true, mode: 0o700 });
  // kubectl dispatches `oidc-login` to the first kubectl-oidc_login on PATH: the wrapper, by that name.
  await installExecRecordingWrapper({ path: join(binDir, KUBELOGIN), target: plugin.path, logDir: runsDir });
  const otherCa = await createCA(
    join(o.dir, 'other-ca'),
    'credprov kubelogin lab: a CA that signed nothing of the issuer',
  );

  const clients = {
    user: { id: LAB_CLIENT_IDS.user, secret: secret(), grants: ['password', 'refresh_token'] },
    robot: { id: LAB_CLIENT_IDS.robot, secret: secret(), grants: ['client_credentials'] },
  } satisfies Record<string, OAuthClient>;
  const users = Object.fromEntries(
    LAB_USERS.map((u) => [
      u,
      {
        username: u,
        password: secret(),
        ...(SHORT_LIVED.includes(u) ? { idTokenLifetimeSec: SHORT_ID_TOKEN_SEC } : {}),
      },
    ]),
  ) as Record<LabUser, OAuthUser>;
  const secrets = [clients.user.secret, clients.robot.secret, ...Object.values(users).map((u) => u.password)];
  for (const s of secrets) o.onSecret(s);

  const issuer = await startOidcIssuer({
    address: o.files.address,
    port: o.files.issuerPort,
    certFile: o.files.certFile,
    keyFile: o.files.keyFile,
    audiences: [clients.user.id, clients.robot.id],
    ...(o.log ? { log: o.log } : {}),
    token: {
      clients: [clients.user, clients.robot],
      users: Object.values(users),
      accessTokenAudience: ACCESS_TOKEN_AUDIENCE,
      idTokenLifetimeSec: ID_TOKEN_LIFETIME_SEC,
      accessTokenLifetimeSec: ACCESS_TOKEN_LIFETIME_SEC,
      onSecret: o.onSecret,
    },
  });
  const subjectOf = (e: Pick<KubeloginExec, 'grant' | 'user'>) =>
    e.grant === 'password' ? e.user! : clientSubject(clients.robot.id);

  let kubectl = o.kubectl;
  return {
    issuer,
    plugin,
    runsDir,
    apiServerAudiences: [clients.user.id, clients.robot.id],
    clients,
    users,
    secrets,
    subjectOf,
    setKubectl(path) {
      kubectl = path;
    },
    execFor(e) {
      if (!e.direct && !kubectl) throw new Error('kubelogin lab: no kubectl to run `kubectl oidc-login` (setKubectl)');
      const client = e.grant === 'password' ? clients.user : clients.robot;
      // The flags of v1.36.3 (pkg/cmd/get_token.go, authentication.go, tokencache.go, tls.go).
      const flags = [
        `--oidc-issuer-url=${issuer.url}`,
        `--oidc-client-id=${client.id}`,
        `--oidc-client-secret=${e.wrongSecret ? `not-${client.secret}` : client.secret}`,
        `--grant-type=${e.grant}`,
        ...(e.grant === 'password' ? [`--username=${e.user!}`, `--password=${users[e.user!].password}`] : []),
        `--token-cache-dir=${e.cacheDir}`,
        e.ca === 'skip-verify'
          ? '--insecure-skip-tls-verify'
          : `--certificate-authority=${e.ca === 'other' ? otherCa.certPath : o.files.caFile}`,
        ...(e.useAccessToken ? ['--oidc-use-access-token'] : []),
      ];
      return {
        apiVersion: `client.authentication.k8s.io/${e.apiVersion ?? 'v1'}`,
        command: e.direct ? plugin.path : kubectl!,
        args: e.direct ? ['get-token', ...flags] : ['oidc-login', 'get-token', ...flags],
        // kubectl finds plugins on PATH; only the wrapper's dir and the system's.
        env: e.direct ? [] : [{ name: 'PATH', value: `${binDir}:/usr/bin:/bin` }],
        provideClusterInfo: false,
        interactiveMode: 'Never',
      };
    },
    stop: () => issuer.stop(),
  };
}

/** The lab's flags that carry a secret, for evidence: --oidc-client-secret and --password values hidden. */
export function redactArgs(args: string[]): string[] {
  return args.map((a) => a.replace(/^(--oidc-client-secret=|--password=).*$/, '$1<redacted>'));
}
