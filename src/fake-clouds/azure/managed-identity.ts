// Managed identity as App Service exposes it (what MSAL v1.7.2 picks when
// IDENTITY_ENDPOINT and IDENTITY_HEADER are set, apps/managedidentity
// managedidentity.go GetSource): GET <IDENTITY_ENDPOINT>?api-version=2019-08-01
// &resource=… with X-IDENTITY-HEADER. It needs that header's secret, the
// api-version and, for a user-assigned identity, a client_id it knows; it answers
// an opaque access token for the resource asked.
import { jsonReply, Refusal, type Endpoint, type IssuedTokens } from '../kit/index.ts';
import { publicPath, type FakeAzureRequest, type IssuedAccess } from './records.ts';

export const IDENTITY_PATH = '/msi/token';
const LIFETIME_S = 3600;

export function managedIdentityEndpoint(o: {
  /** The value X-IDENTITY-HEADER must carry (App Service's per-site secret). */
  identityHeader: string;
  /** User-assigned identities (client ids); system-assigned always works. */
  identities: string[];
  tokens: IssuedTokens<IssuedAccess>;
  now: () => number;
  /** Mints the token instead of an opaque one from `tokens` (a JWT an API server verifies). */
  mint?: (resource: string, identity: string) => Promise<{ token: string; expiresAt: number }>;
}): Endpoint<FakeAzureRequest> {
  return {
    record: (req) => ({ endpoint: 'identity', path: publicPath(req.url) }),
    refuse: (r) => jsonReply(r.status, { statusCode: r.status, message: r.message }),
    async answer(req, note) {
      const resource = req.url.searchParams.get('resource') ?? '';
      const clientId = req.url.searchParams.get('client_id');
      note({ resource });
      if (req.method !== 'GET' || req.url.pathname !== IDENTITY_PATH)
        throw new Refusal(404, 'NotFound', `no such endpoint ${req.url.pathname}`);
      if (req.header('x-identity-header') !== o.identityHeader)
        throw new Refusal(401, 'Unauthorized', 'X-IDENTITY-HEADER is missing or is not this site’s IDENTITY_HEADER');
      if (req.url.searchParams.get('api-version') !== '2019-08-01')
        throw new Refusal(400, 'BadRequest', 'api-version must be 2019-08-01');
      if (!resource) throw new Refusal(400, 'BadRequest', 'resource is required');
      if (clientId !== null && !o.identities.includes(clientId))
        throw new Refusal(400, 'BadRequest', `identity ${clientId} is not assigned to this resource`);
      const identity = clientId ?? 'system-assigned';
      const minted = o.mint
        ? await o.mint(resource, identity)
        : { token: o.tokens.issue({ resource, identity }), expiresAt: o.now() + LIFETIME_S * 1000 };
      const token = minted.token;
      note({ identity });
      const expiresOn = Math.floor(minted.expiresAt / 1000);
      return jsonReply(200, {
        access_token: token,
        expires_on: String(expiresOn),
        resource,
        token_type: 'Bearer',
        client_id: identity,
      });
    },
  };
}
