// Entra ID (Azure AD) at https://login.microsoftonline.com, the endpoints MSAL
// Go v1.7.2 calls (acr-credential-provider's client assertion; Azure
// kubelogin's service principal, ROPC and workload identity modes):
// - GET /common/discovery/instance?api-version=1.1&authorization_endpoint=…: instance
//   discovery, which MSAL asks a trusted host itself (apps/internal/oauth/ops/authority/
//   authority.go:580-610 AADInstanceDiscovery); it names the tenant's OpenID configuration;
// - GET /<tenant>/v2.0/.well-known/openid-configuration; the issuer must name the authority
//   (ValidateIssuerMatchesAuthority); jwks_uri names the tenant's signing keys, served at
//   GET /<tenant>/discovery/v2.0/keys when the fake signs its tokens;
// - GET /common/UserRealm/<username>?api-version=1.0: user realm discovery before a
//   password grant (authority.go:542-562), a Managed account of the tenant's domain;
// - POST /<tenant>/oauth2/v2.0/token: the grants in entra-grants.ts.
import {
  jsonReply,
  oauthRefusal,
  Refusal,
  TrustedIssuer,
  type CloudRecord,
  type CloudRequest,
  type Endpoint,
  type Note,
  type OidcTrust,
  type Reply,
} from '../kit/index.ts';
import {
  ASSERTION_TYPE,
  decideGrant,
  type Directory,
  type EntraApp,
  type EntraUser,
  type FederatedCredential,
  type Granted,
} from './entra-grants.ts';
import { AAD_HOST, entraIssuer, entraJwksUri, type EntraTokenSigner } from './entra-tokens.ts';

export { AAD_HOST } from './entra-tokens.ts';
export type { EntraApp, EntraUser, FederatedCredential, Granted } from './entra-grants.ts';

/** What a record keeps of a call (never a secret, an assertion or a token). */
export interface EntraIdSeen {
  tenant?: string;
  clientId?: string;
  /** The client id (or user) the token was issued to. */
  identity?: string;
  resource?: string;
  grantType?: string;
  clientAuth?: 'secret' | 'assertion' | 'none';
  /** A password grant's user name. */
  username?: string;
  /** A federated assertion's subject and audience. */
  subject?: string;
  audience?: string[];
}

/** Mints an access token for a grant (the fake cloud's own, so its other endpoints or the API server accept it). */
export type IssueAccessToken = (
  resource: string,
  identity: string,
  granted?: Granted,
) => { token: string; expiresIn: number } | Promise<{ token: string; expiresIn: number }>;

export interface FakeAzureAdOptions {
  /** The tenant the apps and users belong to (federated credentials name their own). */
  tenantId?: string;
  apps?: EntraApp[];
  users?: EntraUser[];
  /** The APIs tokens may be asked for (client ids); default any. */
  resources?: string[];
  /** Signs id_tokens and publishes the JWKS (the tenant's discovery/v2.0/keys). */
  signer?: EntraTokenSigner;
}

const aadRefusal = (r: Refusal, req: CloudRequest): Reply => {
  if (r.code === 'invalid_instance') return jsonReply(r.status, { error: r.code });
  const code = /^AADSTS(\d+):/.exec(r.message)?.[1];
  if (!code) return oauthRefusal(r, req);
  return jsonReply(r.status, {
    error: r.code,
    error_description: r.message,
    error_codes: [Number(code)],
    timestamp: new Date()
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, 'Z'),
  });
};

export class FakeAzureAd {
  private readonly issuer = new TrustedIssuer();
  private readonly dir: Directory;
  private readonly signer: EntraTokenSigner | undefined;
  private readonly tenants: Set<string>;

  constructor(credentials: FederatedCredential[], o: FakeAzureAdOptions = {}) {
    this.dir = {
      credentials,
      apps: o.apps ?? [],
      users: o.users ?? [],
      ...(o.resources ? { resources: o.resources } : {}),
    };
    this.tenants = new Set([...credentials.map((c) => c.tenantId), ...(o.tenantId ? [o.tenantId] : [])]);
    this.signer = o.signer;
  }

  /** The cluster's issuer and keys, once the cluster is up: federated assertions are verified against them. */
  trustOidc(oidc: OidcTrust): void {
    this.issuer.set(oidc);
  }

  /** Entra ID's endpoints, for a fake cloud whose records hold what Entra ID saw. */
  endpoint<R extends CloudRecord & EntraIdSeen>(issue: IssueAccessToken, record?: Endpoint<R>['record']): Endpoint<R> {
    return {
      ...(record ? { record } : {}),
      refuse: aadRefusal,
      answer: (req, note) => this.answer(req, note as Note<EntraIdSeen>, issue),
    };
  }

  private async answer(req: CloudRequest, note: Note<EntraIdSeen>, issue: IssueAccessToken): Promise<Reply> {
    const { url } = req;
    if (req.method === 'GET' && url.pathname === '/common/discovery/instance') return instanceDiscovery(url, note);
    const realm = /^\/common\/UserRealm\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && realm) return this.userRealm(decodeURIComponent(realm[1]!), note);
    const m =
      /^\/([^/]+)\/(v2\.0\/\.well-known\/openid-configuration|discovery\/v2\.0\/keys|oauth2\/v2\.0\/token)$/.exec(
        url.pathname,
      );
    const tenant = m?.[1];
    if (!m || !tenant) throw new Refusal(404, 'not_found', `no such endpoint ${url.pathname}`);
    note({ tenant });
    if (!this.tenants.has(tenant))
      throw new Refusal(
        400,
        'invalid_request',
        `AADSTS90002: Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`,
      );
    const authority = `https://${AAD_HOST}/${tenant}`;
    if (m[2]!.startsWith('v2.0') && req.method === 'GET')
      return jsonReply(200, {
        issuer: entraIssuer(tenant),
        authorization_endpoint: `${authority}/oauth2/v2.0/authorize`,
        token_endpoint: `${authority}/oauth2/v2.0/token`,
        jwks_uri: entraJwksUri(tenant),
        id_token_signing_alg_values_supported: ['RS256'],
        response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
        subject_types_supported: ['pairwise'],
      });
    if (m[2]!.startsWith('discovery') && req.method === 'GET') {
      if (!this.signer) throw new Refusal(404, 'not_found', `no keys at ${url.pathname}`);
      return jsonReply(200, this.signer.jwks);
    }
    if (req.method !== 'POST') throw new Refusal(404, 'not_found', `${req.method} ${url.pathname}`);
    const form = req.form();
    const clientId = form.get('client_id') ?? '';
    const grantType = form.get('grant_type') ?? '';
    // How the client authenticated, noted before the grant is decided: a refusal's record says it too.
    const clientAuth =
      form.get('client_assertion_type') === ASSERTION_TYPE
        ? 'assertion'
        : form.get('client_secret') !== null
          ? 'secret'
          : 'none';
    note({ clientId, grantType, clientAuth, ...(form.get('username') ? { username: form.get('username')! } : {}) });
    const granted = await decideGrant(req, tenant, this.dir, this.issuer);
    note({
      identity: granted.username ?? granted.clientId,
      resource: granted.resource,
      clientAuth: granted.clientAuth,
      ...(granted.subject ? { subject: granted.subject, audience: granted.audience } : {}),
    });
    const { token, expiresIn } = await issue(granted.resource, granted.clientId, granted);
    return jsonReply(200, {
      token_type: 'Bearer',
      scope: `${granted.resource}/.default`,
      expires_in: expiresIn,
      ext_expires_in: expiresIn,
      access_token: token,
      ...(granted.grant === 'password' ? await this.userTokens(tenant, granted) : {}),
    });
  }

  /** What a user sign-in adds: an id_token, client_info (MSAL's home account) and a refresh token. */
  private async userTokens(tenant: string, g: Granted): Promise<Record<string, string>> {
    const clientInfo = Buffer.from(JSON.stringify({ uid: g.objectId, utid: tenant })).toString('base64url');
    const subject = { tenant, audience: g.clientId, objectId: g.objectId, clientId: g.clientId, username: g.username! };
    return {
      client_info: clientInfo,
      ...(this.signer ? { id_token: await this.signer.idToken(subject, 3600) } : {}),
    };
  }

  private userRealm(username: string, note: Note<EntraIdSeen>): Reply {
    note({ username });
    const user = this.dir.users.find((u) => u.username.toLowerCase() === username.toLowerCase());
    const domain = username.split('@')[1] ?? '';
    return jsonReply(200, {
      ver: '1.0',
      account_type: user ? 'Managed' : 'Unknown',
      domain_name: domain,
      cloud_instance_name: 'microsoftonline.com',
      cloud_audience_urn: 'urn:federation:MicrosoftOnline',
    });
  }
}

/** Instance discovery for the tenant the authorization endpoint names. */
function instanceDiscovery(url: URL, note: Note<EntraIdSeen>): Reply {
  const endpoint = url.searchParams.get('authorization_endpoint') ?? '';
  const authorize = URL.canParse(endpoint) ? new URL(endpoint) : undefined;
  const tenant =
    authorize?.host === AAD_HOST ? /^\/([^/]+)\/oauth2\/v2\.0\/authorize$/.exec(authorize.pathname)?.[1] : undefined;
  if (url.searchParams.get('api-version') !== '1.1' || !tenant)
    throw new Refusal(400, 'invalid_instance', `authorization_endpoint ${endpoint}`);
  note({ tenant });
  return jsonReply(200, {
    tenant_discovery_endpoint: `https://${AAD_HOST}/${tenant}/v2.0/.well-known/openid-configuration`,
    'api-version': '1.1',
    metadata: [{ preferred_network: AAD_HOST, preferred_cache: AAD_HOST, aliases: [AAD_HOST] }],
  });
}
