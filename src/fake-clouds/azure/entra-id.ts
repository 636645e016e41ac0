// Entra ID (Azure AD) at https://login.microsoftonline.com, the endpoints MSAL
// v1.7.2 calls for a client assertion credential (azidentity.NewClientAssertionCredential,
// as acr-credential-provider builds one from a KEP-4412 service-account token):
// - GET /common/discovery/instance?api-version=1.1&authorization_endpoint=…: instance
//   discovery, which MSAL asks a trusted host itself (apps/internal/oauth/ops/authority/
//   authority.go:580-610 AADInstanceDiscovery); it names the tenant's OpenID configuration;
// - GET /<tenant>/v2.0/.well-known/openid-configuration; the issuer must name the authority
//   (ValidateIssuerMatchesAuthority);
// - POST /<tenant>/oauth2/v2.0/token, grant_type client_credentials with a jwt-bearer
//   client_assertion: like a workload identity federated credential, the assertion is
//   verified against the cluster's OIDC discovery and JWKS (issuer, RS256 signature,
//   expiry) and must carry the credential's subject and audience; the client id and
//   tenant must be the credential's; the scope must be a resource's /.default.
import {
  audiences,
  jsonReply,
  oauthRefusal,
  Refusal,
  TrustedIssuer,
  type CloudRecord,
  type CloudRequest,
  type Endpoint,
  type Note,
  type OidcTrust,
} from '../kit/index.ts';

export const AAD_HOST = 'login.microsoftonline.com';
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** An app's federated identity credential: which tokens may stand for it. */
export interface FederatedCredential {
  tenantId: string;
  clientId: string;
  /** system:serviceaccount:<namespace>:<name> */
  subject: string;
  audience: string;
}

/** What a record keeps of a call (never the assertion or the token). */
export interface EntraIdSeen {
  tenant?: string;
  clientId?: string;
  /** The client id the token was issued to. */
  identity?: string;
  resource?: string;
  subject?: string;
  audience?: string[];
}

/** Mints an access token for a resource and an identity (the fake cloud's own, so its other endpoints accept it). */
export type IssueAccessToken = (resource: string, identity: string) => { token: string; expiresIn: number };

export class FakeAzureAd {
  private readonly issuer = new TrustedIssuer();
  private readonly credentials: FederatedCredential[];

  constructor(credentials: FederatedCredential[]) {
    this.credentials = credentials;
  }

  /** The cluster's issuer and keys, once the cluster is up. */
  trustOidc(oidc: OidcTrust): void {
    this.issuer.set(oidc);
  }

  /** Entra ID's endpoints, for a fake cloud whose records hold what Entra ID saw. */
  endpoint<R extends CloudRecord & EntraIdSeen>(issue: IssueAccessToken, record?: Endpoint<R>['record']): Endpoint<R> {
    return {
      ...(record ? { record } : {}),
      refuse: (r, req) =>
        r.code === 'invalid_instance' ? jsonReply(r.status, { error: r.code }) : oauthRefusal(r, req),
      answer: (req, note) => this.answer(req, note as Note<EntraIdSeen>, issue),
    };
  }

  private async answer(req: CloudRequest, note: Note<EntraIdSeen>, issue: IssueAccessToken) {
    const { url } = req;
    if (req.method === 'GET' && url.pathname === '/common/discovery/instance') return instanceDiscovery(url, note);
    const m = /^\/([^/]+)\/(v2\.0\/\.well-known\/openid-configuration|oauth2\/v2\.0\/token)$/.exec(url.pathname);
    const tenant = m?.[1];
    if (!m || !tenant) throw new Refusal(404, 'not_found', `no such endpoint ${url.pathname}`);
    note({ tenant });
    const authority = `https://${AAD_HOST}/${tenant}`;
    if (m[2]!.startsWith('v2.0') && req.method === 'GET')
      return jsonReply(200, {
        issuer: `${authority}/v2.0`,
        authorization_endpoint: `${authority}/oauth2/v2.0/authorize`,
        token_endpoint: `${authority}/oauth2/v2.0/token`,
      });
    if (req.method !== 'POST') throw new Refusal(404, 'not_found', `${req.method} ${url.pathname}`);
    const refuse = (why: string) => new Refusal(401, 'invalid_client', why);
    const form = req.form();
    const clientId = form.get('client_id') ?? '';
    const scope = (form.get('scope') ?? '').split(' ').find((s) => s.endsWith('/.default'));
    const resource = scope?.slice(0, -'/.default'.length);
    note({ clientId, ...(clientId ? { identity: clientId } : {}), ...(resource ? { resource } : {}) });
    if (form.get('grant_type') !== 'client_credentials')
      throw new Refusal(400, 'invalid_client', 'grant_type must be client_credentials');
    if (form.get('client_assertion_type') !== ASSERTION_TYPE)
      throw new Refusal(400, 'invalid_client', `client_assertion_type must be ${ASSERTION_TYPE}`);
    if (!resource) throw new Refusal(400, 'invalid_client', 'scope must name a resource/.default');
    const verdict = await this.issuer.verify(form.get('client_assertion') ?? '');
    if (!verdict.ok)
      throw refuse(
        verdict.failure === 'untrusted'
          ? 'no OIDC issuer is trusted (the cluster is not up)'
          : verdict.failure === 'expired'
            ? 'the assertion is expired'
            : `the assertion does not verify: ${String(verdict.error)}`,
      );
    const audience = audiences(verdict.payload);
    const subject = String(verdict.payload.sub);
    note({ subject, audience });
    const cred = this.credentials.find((c) => c.tenantId === tenant && c.clientId === clientId);
    if (!cred) throw refuse(`no application ${clientId} in tenant ${tenant}`);
    if (cred.subject !== subject) throw refuse(`no federated credential for subject ${subject}`);
    if (!audience.includes(cred.audience)) throw refuse(`the assertion's audience is not ${cred.audience}`);
    const { token, expiresIn } = issue(resource, clientId);
    return jsonReply(200, {
      token_type: 'Bearer',
      expires_in: expiresIn,
      ext_expires_in: expiresIn,
      access_token: token,
    });
  }
}

/** Instance discovery for the tenant the authorization endpoint names. */
function instanceDiscovery(url: URL, note: Note<EntraIdSeen>) {
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
