// What fake Azure records of each request: never a token or a secret.
export interface FakeAzureRequest {
  seq: number;
  time: string;
  endpoint: 'identity' | 'acr' | 'aad';
  method: string;
  /** The path with the query's parameter names and non-secret values (api-version, resource, client_id). */
  path: string;
  userAgent?: string;
  /** identity: the resource asked for; acr exchange: the service and tenant sent. */
  resource?: string;
  service?: string;
  tenant?: string;
  grantType?: string;
  /** aad: how the client authenticated (a secret, an assertion, none: a public client), and a password grant's user. */
  clientAuth?: 'secret' | 'assertion' | 'none';
  username?: string;
  /** Which identity the token was issued to (managed identity client id, 'system-assigned', or an app's client id). */
  identity?: string;
  /** aad: the client assertion's subject and audience, and the client id it was sent for. */
  subject?: string;
  audience?: string[];
  clientId?: string;
  status: number;
  error?: string;
}

/** The path and the query's non-secret parameters (no token ever travels in a query here, but say so by construction). */
export function publicPath(url: URL): string {
  const keep = ['api-version', 'resource', 'client_id'];
  const q = [...url.searchParams.entries()].filter(([k]) => keep.includes(k));
  return q.length === 0 ? url.pathname : `${url.pathname}?${new URLSearchParams(q).toString()}`;
}

/** An access token fake Azure issued: for which resource, to which identity. */
export interface IssuedAccess {
  resource: string;
  identity: string;
}
