// credprov's model of Azure/kubelogin v0.2.22 (`kubelogin get-token`,
// `kubelogin convert-kubeconfig`), the exec plugin AKS kubeconfigs run: which
// options a run ends up with, the token request each non-browser login mode
// sends to Entra ID, what it prints, when its token cache answers instead,
// and what convert-kubeconfig writes. Read from the source (pkg/internal/token,
// pkg/internal/converter, azidentity v1.14.0, azidentity/cache v0.4.0, MSAL Go
// v1.7.2); convert-kubeconfig confirmed on the real binary (2026-11-29).
//
// - Options (token/options.go): flags first, then the environment OVERWRITES them
//   (UpdateFromEnv :186-290) unless --disable-environment-override: AZURE_CLIENT_ID
//   beats --client-id, AZURE_TENANT_ID beats --tenant-id, AAD_LOGIN_METHOD beats --login.
//   --authority-host must be an https URL ending in "/" (:157-168); AZURE_AUTHORITY_HOST
//   and AZURE_FEDERATED_TOKEN_FILE are read for workloadidentity only (:255-265).
// - Scope (execCredentialPlugin.go:105-111): --server-id without a trailing "/", plus
//   "/.default" unless it already ends so. --server-id is required (:59-61).
// - Token requests (azidentity → MSAL confidential/public client), POSTed to
//   <authority>/<tenant>/oauth2/v2.0/token after instance discovery (unless
//   --disable-instance-discovery) and the tenant's OpenID configuration:
//   spn+secret: client_credentials with client_secret; workloadidentity:
//   client_credentials with client_assertion = the federated token file's content
//   (re-read each run) and client_assertion_type jwt-bearer; ropc: password grant with
//   scope "<scope> openid offline_access profile"; msi: the managed identity endpoint
//   (IMDS, or IDENTITY_ENDPOINT+IDENTITY_HEADER) with resource = server id.
// - Output (execCredentialWriter.go:31-88): the apiVersion KUBERNETES_EXEC_INFO names
//   (v1 or v1beta1; unset, empty or without apiVersion → v1beta1; another → error
//   "api version: X is not supported", unparsable → error), token and
//   expirationTimestamp = the token's expiresOn (second precision). spec.interactive
//   is never read. The writer runs after the token is fetched: a bad
//   KUBERNETES_EXEC_INFO still costs a token request.
// - Cache: get-token always asks for the persistent MSAL cache (cmd/token.go:14). On
//   Linux it is a JWE file ${XDG_CACHE_HOME:-~/.cache}/.IdentityService/msal.cache
//   whose AES key sits in the kernel user keyring (azidentity/cache cache_linux.go);
//   where keyctl is refused it is silently off (klog V5). With it, every mode but msi
//   answers a cached access token until 5 minutes before its expiry (MSAL
//   AccessToken.Validate), across processes: a 401 re-exec gets the same token.
//   devicecode/interactive/ropc also keep an authentication record in
//   <--cache-dir, KUBECACHEDIR, ~/.kube/cache/kubelogin>/auth.json.
// - convert-kubeconfig (converter/convert.go:216-520): every user whose exec runs
//   kubelogin (or the legacy azure auth-provider) becomes exec {apiVersion v1beta1,
//   command kubelogin, args get-token --login <mode> --server-id <id> …, installHint
//   kept}; no interactiveMode (v1beta1 defaults it to IfAvailable). A --client-secret or
//   --password given to convert is WRITTEN INTO args, so it sits in the kubeconfig and
//   on every plugin command line; workloadidentity keeps only --server-id (the rest
//   comes from the AZURE_* env at get-token).
//
// What a fake Entra ID must check, as the real one does: the tenant in the path,
// the grant type, client_id known to the tenant, the secret (spn) or the
// assertion (workload identity: signature against the issuer's JWKS, iss and
// sub of a federated credential of that app, aud api://AzureADTokenExchange,
// not expired) or the user's password (ropc); scope = <resource>/.default of a
// known resource; tokens it issues carry aud = the server id, so the API
// server's JWT authenticator accepts only those.

export const AZURE_LOGIN_MODES = [
  'devicecode',
  'interactive',
  'spn',
  'ropc',
  'msi',
  'azurecli',
  'azd',
  'workloadidentity',
  'azurepipelines',
] as const;
export type AzureLoginMode = (typeof AZURE_LOGIN_MODES)[number];
/** Modes that need a browser or a person: never run unattended. */
export const AZURE_INTERACTIVE_MODES: readonly AzureLoginMode[] = ['devicecode', 'interactive'];
/** Modes a fake Entra ID on loopback can serve (azurecli/azd need their CLIs, azurepipelines its service). */
export const AZURE_FAKEABLE_MODES: readonly AzureLoginMode[] = ['spn', 'ropc', 'workloadidentity', 'msi'];
export const AZURE_WORKLOAD_AUDIENCE = 'api://AzureADTokenExchange';
export const AZURE_JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** MSAL treats a cached access token as expired this long before its expiresOn. */
export const MSAL_EXPIRY_MARGIN_MS = 5 * 60_000;

export interface AzureKubeloginFlags {
  login?: string;
  serverId?: string;
  clientId?: string;
  clientSecret?: string;
  tenantId?: string;
  username?: string;
  password?: string;
  authorityHost?: string;
  federatedTokenFile?: string;
  disableEnvironmentOverride?: boolean;
  useAzureRmEnvVars?: boolean;
}

export interface AzureKubeloginOptions {
  login: string;
  serverId?: string;
  clientId?: string;
  clientSecret?: string;
  tenantId?: string;
  username?: string;
  password?: string;
  authorityHost?: string;
  federatedTokenFile?: string;
}

/** options.go UpdateFromEnv: what a run ends up with (the environment wins over flags). */
export function resolveAzureOptions(
  flags: AzureKubeloginFlags,
  env: Record<string, string | undefined>,
): AzureKubeloginOptions {
  const o: AzureKubeloginOptions = { login: flags.login ?? 'devicecode' };
  for (const k of ['serverId', 'clientId', 'clientSecret', 'tenantId', 'username', 'password'] as const)
    if (flags[k] !== undefined) o[k] = flags[k];
  if (flags.authorityHost !== undefined) o.authorityHost = flags.authorityHost;
  if (flags.federatedTokenFile !== undefined) o.federatedTokenFile = flags.federatedTokenFile;
  if (flags.disableEnvironmentOverride) return o;
  // Later lines win, as the source assigns them in this order.
  const take = (key: keyof AzureKubeloginOptions, names: string[]) => {
    for (const n of names) if (env[n] !== undefined) o[key] = env[n]!;
  };
  if (flags.useAzureRmEnvVars) {
    take('clientId', ['ARM_CLIENT_ID']);
    take('clientSecret', ['ARM_CLIENT_SECRET']);
    take('tenantId', ['ARM_TENANT_ID']);
  } else {
    take('clientId', ['AAD_SERVICE_PRINCIPAL_CLIENT_ID', 'AZURE_CLIENT_ID']);
    take('clientSecret', ['AAD_SERVICE_PRINCIPAL_CLIENT_SECRET', 'AZURE_CLIENT_SECRET']);
    take('tenantId', ['AZURE_TENANT_ID']);
  }
  take('username', ['AAD_USER_PRINCIPAL_NAME', 'AZURE_USERNAME']);
  take('password', ['AAD_USER_PRINCIPAL_PASSWORD', 'AZURE_PASSWORD']);
  take('login', ['AAD_LOGIN_METHOD']);
  if (o.login === 'workloadidentity') {
    take('clientId', ['AZURE_CLIENT_ID']);
    take('federatedTokenFile', ['AZURE_FEDERATED_TOKEN_FILE']);
    take('authorityHost', ['AZURE_AUTHORITY_HOST']);
  }
  return o;
}

/** The scope it asks Entra ID for (execCredentialPlugin.go GetScope). */
export function azureScope(serverId: string): string {
  const s = serverId.replace(/\/+$/, '');
  return s.endsWith('/.default') ? s : `${s}/.default`;
}

export type AzureTokenRequest =
  | { endpoint: 'token'; tenant: string; form: Record<string, string> }
  | { endpoint: 'managed-identity'; resource: string; clientId?: string };

export type AzureRunPlan = { ok: true; request: AzureTokenRequest } | { ok: false; error: string };

/** The request a non-browser mode sends (or why the run fails before any), from resolved options. */
export function planAzureTokenRequest(o: AzureKubeloginOptions, federatedToken?: string): AzureRunPlan {
  if (!(AZURE_LOGIN_MODES as readonly string[]).includes(o.login))
    return { ok: false, error: `'${o.login}' is not a supported login method` };
  if (o.authorityHost !== undefined && !/^https?:\/\/[^/]+.*\/$/.test(o.authorityHost))
    return { ok: false, error: `authority host "${o.authorityHost}" is not valid` };
  if (!o.serverId) return { ok: false, error: 'server-id is required' };
  const scope = azureScope(o.serverId);
  const need = (field: keyof AzureKubeloginOptions, what: string) => (o[field] ? undefined : `${what} cannot be empty`);
  switch (o.login) {
    case 'spn': {
      const missing =
        need('clientId', 'client ID') ?? need('tenantId', 'tenant ID') ?? need('clientSecret', 'client secret');
      if (missing) return { ok: false, error: missing };
      return {
        ok: true,
        request: {
          endpoint: 'token',
          tenant: o.tenantId!,
          form: { grant_type: 'client_credentials', client_id: o.clientId!, client_secret: o.clientSecret!, scope },
        },
      };
    }
    case 'workloadidentity': {
      const missing =
        need('clientId', 'client ID') ??
        need('tenantId', 'tenant ID') ??
        need('federatedTokenFile', 'federated token file');
      if (missing) return { ok: false, error: missing };
      return {
        ok: true,
        request: {
          endpoint: 'token',
          tenant: o.tenantId!,
          form: {
            grant_type: 'client_credentials',
            client_id: o.clientId!,
            client_assertion_type: AZURE_JWT_BEARER,
            client_assertion: federatedToken ?? '<the federated token file>',
            scope,
          },
        },
      };
    }
    case 'ropc': {
      const missing =
        need('clientId', 'client ID') ??
        need('tenantId', 'tenant ID') ??
        need('username', 'username') ??
        need('password', 'password');
      if (missing) return { ok: false, error: missing };
      return {
        ok: true,
        request: {
          endpoint: 'token',
          tenant: o.tenantId!,
          form: {
            grant_type: 'password',
            client_id: o.clientId!,
            username: o.username!,
            password: o.password!,
            scope: `${scope} openid offline_access profile`,
          },
        },
      };
    }
    case 'msi':
      return {
        ok: true,
        request: {
          endpoint: 'managed-identity',
          resource: scope.slice(0, -'/.default'.length),
          ...(o.clientId ? { clientId: o.clientId } : {}),
        },
      };
    default:
      return { ok: false, error: `login mode ${o.login} needs a browser, a person or another CLI: not modelled` };
  }
}

export type ExecInfoVersion = { ok: true; apiVersion: string } | { ok: false; error: string };

/** execCredentialWriter.go getAPIVersionFromExecInfoEnv. */
export function azureExecApiVersion(execInfo: string | undefined): ExecInfoVersion {
  if (!execInfo) return { ok: true, apiVersion: 'client.authentication.k8s.io/v1beta1' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(execInfo);
  } catch {
    return { ok: false, error: `cannot unmarshal ${JSON.stringify(execInfo)} to ExecCredential` };
  }
  const v = (parsed as { apiVersion?: unknown } | null)?.apiVersion;
  if (v === undefined || v === '') return { ok: true, apiVersion: 'client.authentication.k8s.io/v1beta1' };
  if (v === 'client.authentication.k8s.io/v1' || v === 'client.authentication.k8s.io/v1beta1')
    return { ok: true, apiVersion: v };
  return { ok: false, error: `api version: ${String(v)} is not supported` };
}

/** Whether a run answers from the MSAL cache instead of asking Entra ID (cache available, token cached). */
export function answersFromCache(o: {
  mode: string;
  cacheAvailable: boolean;
  cachedExpiresOn?: number;
  now: number;
}): boolean {
  if (!o.cacheAvailable || o.mode === 'msi' || o.cachedExpiresOn === undefined) return false;
  return o.cachedExpiresOn - MSAL_EXPIRY_MARGIN_MS > o.now;
}

export interface ConvertInput {
  login: AzureLoginMode;
  /** The existing exec args of the user (the AKS kubeconfig's devicecode user). */
  existingArgs: string[];
  flags: { clientId?: string; tenantId?: string; clientSecret?: string; password?: string; username?: string };
}

/** convert-kubeconfig's args for one user (convert.go:268-495), for the modes the labs use. */
export function convertedArgs(c: ConvertInput): string[] {
  const arg = (name: string) => {
    const i = c.existingArgs.indexOf(name);
    return i >= 0 ? c.existingArgs[i + 1] : undefined;
  };
  const serverId = arg('--server-id');
  if (!serverId) throw new Error('--server-id is required');
  const out = ['get-token', '--login', c.login, '--server-id', serverId];
  const clientId = c.flags.clientId ?? arg('--client-id');
  const tenantId = c.flags.tenantId ?? arg('--tenant-id');
  const environment = arg('--environment');
  if (c.login === 'spn' || c.login === 'ropc') {
    if (!clientId) throw new Error('--client-id is required');
    if (!tenantId) throw new Error('--tenant-id is required');
    out.push('--client-id', clientId, '--tenant-id', tenantId);
    if (environment) out.push('--environment', environment);
    if (c.login === 'spn' && c.flags.clientSecret !== undefined) out.push('--client-secret', c.flags.clientSecret);
    if (c.login === 'ropc' && c.flags.username !== undefined) out.push('--username', c.flags.username);
    if (c.login === 'ropc' && c.flags.password !== undefined) out.push('--password', c.flags.password);
  } else if (c.login === 'workloadidentity' || c.login === 'msi') {
    if (c.flags.clientId !== undefined) out.push('--client-id', c.flags.clientId);
    if (c.login === 'workloadidentity' && c.flags.tenantId !== undefined) out.push('--tenant-id', c.flags.tenantId);
  }
  return out;
}

/** Secrets convert-kubeconfig put on the plugin's command line (visible in the kubeconfig and in ps). */
export function secretsInArgs(args: readonly string[]): string[] {
  return ['--client-secret', '--password', '--client-certificate-password'].filter((f) => args.includes(f));
}

/**
 * What the MSAL cache keys an access token by (MSAL Go apps/internal/base/storage: the
 * environment, the tenant as realm, the client id, the scopes, and for a user sign-in the
 * home account; confidential.go/public.go AcquireTokenSilent): never the secret, password or
 * assertion that obtained it. A run whose options give the same key is answered from the cache
 * (answersFromCache) whatever credential it carries. undefined: the mode is never cached (msi).
 */
export function msalCacheKey(o: AzureKubeloginOptions): string | undefined {
  if (o.login === 'msi' || !o.serverId) return undefined;
  const realm = `login.microsoftonline.com|${o.tenantId ?? ''}|${o.clientId ?? ''}|${azureScope(o.serverId)}`;
  return o.login === 'ropc' || o.login === 'devicecode' || o.login === 'interactive'
    ? `${realm}|user:${(o.username ?? '').toLowerCase()}`
    : `${realm}|app`;
}
