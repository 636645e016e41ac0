// The Azure AD endpoints MSAL v1.7.2 calls for a client assertion credential
// (azidentity.NewClientAssertionCredential, as acr-credential-provider builds one
// from a KEP-4412 service-account token), served at https://login.microsoftonline.com:
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
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { OidcTrust } from './fake-aws.ts';

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

export interface AadExchange {
  status: number;
  body: unknown;
  /** What the record keeps (never the assertion or the token). */
  seen: {
    tenant?: string;
    clientId?: string;
    resource?: string;
    subject?: string;
    audience?: string[];
    error?: string;
  };
}

export class FakeAzureAd {
  private jwks: JWTVerifyGetKey | undefined;
  private issuer: string | undefined;
  private readonly credentials: FederatedCredential[];

  constructor(credentials: FederatedCredential[]) {
    this.credentials = credentials;
  }

  /** The cluster's issuer and keys, once the cluster is up. */
  trustOidc(oidc: OidcTrust): void {
    this.issuer = oidc.issuer;
    this.jwks = createLocalJWKSet(oidc.jwks);
  }

  /** Instance discovery for the tenant the authorization endpoint names. */
  private instance(url: URL): AadExchange {
    const endpoint = url.searchParams.get('authorization_endpoint') ?? '';
    const authorize = URL.canParse(endpoint) ? new URL(endpoint) : undefined;
    const tenant =
      authorize?.host === AAD_HOST ? /^\/([^/]+)\/oauth2\/v2\.0\/authorize$/.exec(authorize.pathname)?.[1] : undefined;
    if (url.searchParams.get('api-version') !== '1.1' || !tenant)
      return {
        status: 400,
        body: { error: 'invalid_instance' },
        seen: { error: `authorization_endpoint ${endpoint}` },
      };
    return {
      status: 200,
      body: {
        tenant_discovery_endpoint: `https://${AAD_HOST}/${tenant}/v2.0/.well-known/openid-configuration`,
        'api-version': '1.1',
        metadata: [{ preferred_network: AAD_HOST, preferred_cache: AAD_HOST, aliases: [AAD_HOST] }],
      },
      seen: { tenant },
    };
  }

  /** Answers one request to login.microsoftonline.com; `issue` mints an access token for a resource and identity. */
  async handle(
    method: string,
    url: URL,
    body: string,
    issue: (resource: string, identity: string) => { token: string; expiresIn: number },
  ): Promise<AadExchange> {
    if (method === 'GET' && url.pathname === '/common/discovery/instance') return this.instance(url);
    const m = /^\/([^/]+)\/(v2\.0\/\.well-known\/openid-configuration|oauth2\/v2\.0\/token)$/.exec(url.pathname);
    const tenant = m?.[1];
    const fail = (status: number, error: string, seen: AadExchange['seen'] = {}): AadExchange => ({
      status,
      body: { error: status === 404 ? 'not_found' : 'invalid_client', error_description: error },
      seen: { ...seen, ...(tenant ? { tenant } : {}), error },
    });
    if (!m || !tenant) return fail(404, `no such endpoint ${url.pathname}`);
    const authority = `https://${AAD_HOST}/${tenant}`;
    if (m[2]!.startsWith('v2.0') && method === 'GET')
      return {
        status: 200,
        body: {
          issuer: `${authority}/v2.0`,
          authorization_endpoint: `${authority}/oauth2/v2.0/authorize`,
          token_endpoint: `${authority}/oauth2/v2.0/token`,
        },
        seen: { tenant },
      };
    if (method !== 'POST') return fail(404, `${method} ${url.pathname}`);
    const form = new URLSearchParams(body);
    const clientId = form.get('client_id') ?? '';
    const scope = (form.get('scope') ?? '').split(' ').find((s) => s.endsWith('/.default'));
    const resource = scope?.slice(0, -'/.default'.length);
    const seen = { tenant, clientId, ...(resource ? { resource } : {}) };
    if (form.get('grant_type') !== 'client_credentials')
      return fail(400, 'grant_type must be client_credentials', seen);
    if (form.get('client_assertion_type') !== ASSERTION_TYPE)
      return fail(400, `client_assertion_type must be ${ASSERTION_TYPE}`, seen);
    if (!resource) return fail(400, 'scope must name a resource/.default', seen);
    if (!this.jwks || !this.issuer) return fail(401, 'no OIDC issuer is trusted (the cluster is not up)', seen);
    let payload;
    try {
      ({ payload } = await jwtVerify(form.get('client_assertion') ?? '', this.jwks, {
        issuer: this.issuer,
        algorithms: ['RS256'],
      }));
    } catch (err) {
      const why =
        err instanceof joseErrors.JWTExpired
          ? 'the assertion is expired'
          : `the assertion does not verify: ${String(err)}`;
      return fail(401, why, seen);
    }
    const audience = [payload.aud ?? []].flat();
    const subject = String(payload.sub);
    const full = { ...seen, subject, audience };
    const cred = this.credentials.find((c) => c.tenantId === tenant && c.clientId === clientId);
    if (!cred) return fail(401, `no application ${clientId} in tenant ${tenant}`, full);
    if (cred.subject !== subject) return fail(401, `no federated credential for subject ${subject}`, full);
    if (!audience.includes(cred.audience)) return fail(401, `the assertion's audience is not ${cred.audience}`, full);
    const { token, expiresIn } = issue(resource, clientId);
    return {
      status: 200,
      body: { token_type: 'Bearer', expires_in: expiresIn, ext_expires_in: expiresIn, access_token: token },
      seen: full,
    };
  }
}
