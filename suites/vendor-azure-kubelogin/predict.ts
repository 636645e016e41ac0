// credprov's predictions for the vendor-azure-kubelogin cases, from its model
// of Azure kubelogin v0.2.22 (src/model/azure-kubelogin.ts: flags under the
// environment, each mode's token request, the MSAL cache, the ExecCredential
// version) and of kube-apiserver's JWT authenticator (aud the server id, the
// tenant's issuer, username aad:<oid>). Entra ID's side is the lab's tenant:
// the secret, the password and the federated credential it holds. Pure: the
// lab's principals, the cache state and KUBERNETES_EXEC_INFO come in as arguments.
import {
  answersFromCache,
  azureExecApiVersion,
  msalCacheKey,
  planAzureTokenRequest,
  resolveAzureOptions,
  type AzureKubeloginFlags,
  type AzureTokenRequest,
} from '../../src/model/azure-kubelogin.ts';
import type { Prediction } from '../../src/run/kit.ts';
import { SERVER_ID, USERNAME_PREFIX, type ModeExec } from './plan.ts';

export const MODEL =
  'Azure kubelogin model (src/model/azure-kubelogin.ts: options.go UpdateFromEnv, azidentity/MSAL token requests, ' +
  'the MSAL cache, execCredentialWriter.go) + the JWT authenticator (aud, issuer, claimMappings username oid)';

/** What Entra ID holds: which secret, password and federated token it accepts, and each principal's oid. */
export interface Tenant {
  tenantId: string;
  spn: { clientId: string; secret: string; objectId: string };
  ropc: { clientId: string; username: string; password: string; objectId: string };
  workload: { clientId: string; objectId: string };
  msiObjectId: string;
  /** The federated token file holds a token for the workload's service account, audience api://AzureADTokenExchange. */
  federatedTokenValid: boolean;
}

export interface RunContext {
  /** Does the MSAL cache work here (the kernel keyring probe), and what it holds: key (msalCacheKey) → expiresOn. */
  cacheUsable: boolean;
  cache: Record<string, number>;
  now: number;
  /** KUBERNETES_EXEC_INFO as the client sets it (undefined: unset). */
  execInfo?: string;
}

/** One plugin run and what the API server then does with its token. */
export interface LoginView {
  /** Token endpoint (or managed identity) calls: `<grant>/<client auth>:<status>`, `msi:<status>`. */
  entra: string[];
  pluginExit: number;
  /** The answer's apiVersion ('' when it printed none). */
  apiVersion: string;
  /** Printed the cached token rather than a new one. */
  fromCache: boolean;
  /** The API server's status for the request, or 'no request' when the client got no credential. */
  status: number | 'no request';
  /** kubectl auth whoami's username (kubectl cases only). */
  username?: string;
}

/** The flags kubelogin parses from an exec's args (the ones the model reads). */
export function flagsOf(args: readonly string[]): AzureKubeloginFlags {
  const v = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const pick: Array<[keyof AzureKubeloginFlags, string]> = [
    ['login', '--login'],
    ['serverId', '--server-id'],
    ['clientId', '--client-id'],
    ['clientSecret', '--client-secret'],
    ['tenantId', '--tenant-id'],
    ['username', '--username'],
    ['password', '--password'],
    ['authorityHost', '--authority-host'],
    ['federatedTokenFile', '--federated-token-file'],
  ];
  return Object.fromEntries(pick.flatMap(([k, f]) => (v(f) !== undefined ? [[k, v(f)]] : [])));
}

/** Entra ID's answer to the request, by the tenant's state: the principal's oid, or the refusal's status. */
function entraAnswer(r: AzureTokenRequest, t: Tenant): { call: string; objectId?: string; why: string } {
  if (r.endpoint === 'managed-identity')
    return { call: 'msi:200', objectId: t.msiObjectId, why: `managed identity for resource ${r.resource}` };
  const f = r.form;
  if (f.grant_type === 'password') {
    const ok = f.client_id === t.ropc.clientId && f.username === t.ropc.username && f.password === t.ropc.password;
    return ok
      ? { call: 'password/none:200', objectId: t.ropc.objectId, why: `ROPC for ${f.username}` }
      : { call: 'password/none:400', why: 'the tenant refuses the user or password (AADSTS50126)' };
  }
  if (f.client_assertion !== undefined) {
    const ok = f.client_id === t.workload.clientId && t.federatedTokenValid;
    return ok
      ? {
          call: 'client_credentials/assertion:200',
          objectId: t.workload.objectId,
          why: 'a federated credential of the app accepts the token',
        }
      : { call: 'client_credentials/assertion:400', why: 'no federated credential matches the assertion' };
  }
  const ok = f.client_id === t.spn.clientId && f.client_secret === t.spn.secret;
  return ok
    ? { call: 'client_credentials/secret:200', objectId: t.spn.objectId, why: `client credentials of ${f.client_id}` }
    : { call: 'client_credentials/secret:401', why: 'the tenant refuses the client secret (AADSTS7000215)' };
}

/** One exec as a client runs it: `okStatus` is what the request answers once authenticated (201 whoami, 200 GET). */
export function predictLogin(exec: ModeExec, t: Tenant, c: RunContext, okStatus: number): Prediction<LoginView> {
  const options = resolveAzureOptions(flagsOf(exec.args), exec.env);
  const plan = planAzureTokenRequest(options, t.federatedTokenValid ? '<the federated token>' : '<another token>');
  const version = azureExecApiVersion(c.execInfo);
  const because: string[] = [
    `login ${options.login}, client ${options.clientId ?? '(none)'} (the environment over the flags)`,
  ];
  if (!plan.ok) throw new Error(`the plan's exec cannot run: ${plan.error}`);
  const key = msalCacheKey(options);
  const cachedExpiresOn = key !== undefined ? c.cache[key] : undefined;
  const cached = answersFromCache({
    mode: options.login,
    cacheAvailable: c.cacheUsable,
    ...(cachedExpiresOn !== undefined ? { cachedExpiresOn } : {}),
    now: c.now,
  });
  const value = ((): LoginView => {
    if (cached) {
      because.push(
        `the MSAL cache holds a token under ${key} (tenant, client, scope: not the credential) until 5 minutes before it expires: no request`,
      );
      return {
        entra: [],
        pluginExit: 0,
        apiVersion: version.ok ? version.apiVersion : '',
        fromCache: true,
        status: okStatus,
      };
    }
    const answer = entraAnswer(plan.request, t);
    because.push(answer.why);
    if (answer.objectId === undefined)
      return { entra: [answer.call], pluginExit: 1, apiVersion: '', fromCache: false, status: 'no request' };
    // execCredentialWriter.go: the version comes after the token, so a bad KUBERNETES_EXEC_INFO still costs a request.
    if (!version.ok)
      return { entra: [answer.call], pluginExit: 1, apiVersion: '', fromCache: false, status: 'no request' };
    because.push(
      `the token's aud is the resource ${SERVER_ID}, which the JWT authenticator accepts as ${USERNAME_PREFIX}${answer.objectId}`,
    );
    return { entra: [answer.call], pluginExit: 0, apiVersion: version.apiVersion, fromCache: false, status: okStatus };
  })();
  const objectId = cached ? undefined : entraAnswer(plan.request, t).objectId;
  const username = value.status === okStatus ? usernameOf(plan.request, t, objectId) : undefined;
  return {
    value: { ...value, ...(username && okStatus === 201 ? { username } : {}) },
    model: MODEL,
    because: because.join('; '),
  };
}

/** aad:<oid> of the principal the request authenticates (a cached token is the same principal's). */
function usernameOf(r: AzureTokenRequest, t: Tenant, objectId: string | undefined): string {
  if (objectId) return `${USERNAME_PREFIX}${objectId}`;
  if (r.endpoint === 'managed-identity') return `${USERNAME_PREFIX}${t.msiObjectId}`;
  if (r.form.grant_type === 'password') return `${USERNAME_PREFIX}${t.ropc.objectId}`;
  if (r.form.client_assertion !== undefined) return `${USERNAME_PREFIX}${t.workload.objectId}`;
  return `${USERNAME_PREFIX}${t.spn.objectId}`;
}

export function showLogin(v: LoginView): string {
  return (
    `Entra [${v.entra.join(', ') || 'none'}], plugin exit ${v.pluginExit}` +
    `${v.apiVersion ? ` (${v.apiVersion.replace('client.authentication.k8s.io/', '')}${v.fromCache ? ', cached token' : ''})` : ''}, ` +
    `API server ${v.status}${v.username ? ` as ${v.username}` : ''}`
  );
}

/** The cache entry a run that fetched a token leaves (key → expiresOn), when the cache is usable and the mode cached. */
export function cacheAfter(exec: ModeExec, c: RunContext, v: LoginView, lifetimeMs: number): Record<string, number> {
  const key = msalCacheKey(resolveAzureOptions(flagsOf(exec.args), exec.env));
  if (!c.cacheUsable || key === undefined || v.fromCache || v.pluginExit !== 0) return c.cache;
  return { ...c.cache, [key]: c.now + lifetimeMs };
}
