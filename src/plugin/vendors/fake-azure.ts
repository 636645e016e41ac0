// Fake Azure endpoints on loopback for the real acr-credential-provider, strict
// where Azure is, recording every request without secrets:
// - Managed identity as App Service exposes it (what MSAL v1.7.2 picks when
//   IDENTITY_ENDPOINT and IDENTITY_HEADER are set, apps/managedidentity
//   managedidentity.go GetSource): GET <IDENTITY_ENDPOINT>?api-version=2019-08-01
//   &resource=… with X-IDENTITY-HEADER. It needs that header's secret, the api-version
//   and, for a user-assigned identity, a client_id it knows; it answers an opaque
//   access token for the resource asked.
// - An ACR login server (serveAcrTls: https on 443 of a loopback address, under
//   <name>.azurecr.io): GET /v2/ answers 401 with ACR's Bearer challenge (realm
//   https://<name>.azurecr.io/oauth2/token, service <name>.azurecr.io); POST
//   /oauth2/exchange (grant_type access_token_refresh_token) needs an access token
//   this fake issued for https://containerregistry.azure.net, the login server as
//   service and the tenant it was configured with, and answers {refresh_token}: the
//   password the lab registry accepts for user 00000000-0000-0000-0000-000000000000.
//   The registry itself (pulls) is the lab registry, which containerd reaches through
//   hosts.toml: the plugin never pulls.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ACR_RESOURCE } from './acr.ts';
import { AAD_HOST, type FakeAzureAd } from './fake-azure-ad.ts';

export interface FakeAzureRequest {
  seq: number;
  time: string;
  endpoint: Endpoint;
  method: string;
  /** The path with the query's parameter names and non-secret values (api-version, resource, client_id). */
  path: string;
  userAgent?: string;
  /** identity: the resource asked for; acr exchange: the service and tenant sent. */
  resource?: string;
  service?: string;
  tenant?: string;
  grantType?: string;
  /** Which identity the token was issued to (managed identity client id, 'system-assigned', or an app's client id). */
  identity?: string;
  /** aad: the client assertion's subject and audience, and the client id it was sent for. */
  subject?: string;
  audience?: string[];
  clientId?: string;
  status: number;
  error?: string;
}

export interface FakeAzureOptions {
  tenantId: string;
  /** The value IDENTITY_HEADER must carry (a secret: App Service's per-site header). */
  identityHeader: string;
  /** User-assigned identities the fake knows (client ids); system-assigned always works. */
  identities?: string[];
  /** The refresh token an exchange for `loginServer` hands out (the lab registry's password for ACR_TOKEN_USERNAME). */
  refreshToken(loginServer: string): string;
  /** Azure AD at https://login.microsoftonline.com (client assertions), served by serveTls when set. */
  aad?: FakeAzureAd;
  /** Called with every access token it issues, before it leaves (a redactor's add). */
  onSecret?: (secret: string) => void;
  logFile?: string;
}

interface IssuedToken {
  resource: string;
  identity: string;
}

export class FakeAzure {
  private readonly o: FakeAzureOptions;
  private readonly servers: Server[] = [];
  private readonly issued = new Map<string, IssuedToken>();
  private readonly log: FakeAzureRequest[] = [];
  private seq = 0;

  constructor(o: FakeAzureOptions) {
    this.o = o;
  }

  /** Every request so far, in order. */
  requests(): FakeAzureRequest[] {
    return [...this.log];
  }

  /** Starts the managed identity endpoint on 127.0.0.1; returns IDENTITY_ENDPOINT. */
  async startIdentity(): Promise<string> {
    const server = createServer((req, res) => this.dispatch('identity', req, res, ''));
    this.servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/msi/token`;
  }

  /**
   * Serves, over https on `address:port`, each of `loginServers`' /v2/ challenge and /oauth2/exchange
   * and, when the fake has one, Azure AD: which one a request is for is its Host header.
   */
  async serveTls(o: { loginServers: string[]; address: string; port?: number; certPem: string; keyPem: string }) {
    const server = createTlsServer({ cert: o.certPem, key: o.keyPem }, (req, res) => {
      const host = String(req.headers.host ?? '').replace(/:\d+$/, '');
      if (o.loginServers.includes(host)) return this.dispatch('acr', req, res, host);
      if (host === AAD_HOST && this.o.aad) return this.dispatch('aad', req, res, host);
      this.record({
        endpoint: 'acr',
        method: req.method ?? 'GET',
        path: `//${host}`,
        status: 421,
        error: `not served: ${host}`,
      });
      res.writeHead(421).end();
    });
    this.servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => {
        this.servers.splice(this.servers.indexOf(server), 1);
        reject(err);
      });
      server.listen(o.port ?? 443, o.address, () => resolve());
    });
    return { address: o.address, port: (server.address() as AddressInfo).port };
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()).closeAllConnections())),
    );
  }

  private record(r: Omit<FakeAzureRequest, 'seq' | 'time'>): void {
    const rec: FakeAzureRequest = { seq: ++this.seq, time: new Date().toISOString(), ...r };
    this.log.push(rec);
    if (this.o.logFile) appendFileSync(this.o.logFile, `${JSON.stringify(rec)}\n`);
  }

  /** Mints an opaque access token it will recognise at the exchange. */
  private issue(resource: string, identity: string): { token: string; expiresIn: number } {
    const token = randomBytes(24).toString('base64url');
    this.o.onSecret?.(token);
    this.issued.set(token, { resource, identity });
    return { token, expiresIn: 3600 };
  }

  private dispatch(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse, loginServer: string) {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const base = {
        endpoint,
        method: req.method ?? 'GET',
        path: publicPath(url),
        ...(req.headers['user-agent'] ? { userAgent: String(req.headers['user-agent']).slice(0, 160) } : {}),
      };
      const reply = (status: number, body: unknown, extra: Partial<FakeAzureRequest>, headers = {}) => {
        this.record({ ...base, ...extra, status });
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      const body = Buffer.concat(chunks).toString('utf8');
      if (endpoint === 'identity') return this.identity(req, url, reply);
      if (endpoint === 'aad')
        return void this.o
          .aad!.handle(base.method, url, body, (r, i) => this.issue(r, i))
          .then(
            (a) => reply(a.status, a.body, a.seen.clientId ? { ...a.seen, identity: a.seen.clientId } : a.seen),
            (err: unknown) => reply(500, { error: 'server_error' }, { error: String(err) }),
          );
      return this.acr(req, url, body, loginServer, reply);
    });
  }

  private identity(req: IncomingMessage, url: URL, reply: Reply): void {
    const resource = url.searchParams.get('resource') ?? '';
    const clientId = url.searchParams.get('client_id');
    const refuse = (status: number, error: string) =>
      reply(status, { statusCode: status, message: error }, { resource, error });
    if (req.method !== 'GET' || url.pathname !== '/msi/token') return refuse(404, `no such endpoint ${url.pathname}`);
    if (req.headers['x-identity-header'] !== this.o.identityHeader)
      return refuse(401, 'X-IDENTITY-HEADER is missing or is not this site’s IDENTITY_HEADER');
    if (url.searchParams.get('api-version') !== '2019-08-01') return refuse(400, 'api-version must be 2019-08-01');
    if (!resource) return refuse(400, 'resource is required');
    if (clientId !== null && !(this.o.identities ?? []).includes(clientId))
      return refuse(400, `identity ${clientId} is not assigned to this resource`);
    const identity = clientId ?? 'system-assigned';
    const { token, expiresIn } = this.issue(resource, identity);
    const expiresOn = Math.floor(Date.now() / 1000) + expiresIn;
    reply(
      200,
      { access_token: token, expires_on: String(expiresOn), resource, token_type: 'Bearer', client_id: identity },
      { resource, identity },
    );
  }

  private acr(req: IncomingMessage, url: URL, body: string, loginServer: string, reply: Reply): void {
    if (req.method === 'GET' && url.pathname === '/v2/') {
      const challenge = `Bearer realm="https://${loginServer}/oauth2/token",service="${loginServer}"`;
      return reply(401, { errors: [{ code: 'UNAUTHORIZED' }] }, {}, { 'www-authenticate': challenge });
    }
    if (req.method !== 'POST' || url.pathname !== '/oauth2/exchange')
      return reply(404, { errors: [{ code: 'NOT_FOUND' }] }, { error: `no such endpoint ${url.pathname}` });
    const form = new URLSearchParams(body);
    const seen = {
      grantType: form.get('grant_type') ?? '',
      service: form.get('service') ?? '',
      tenant: form.get('tenant') ?? '',
    };
    const issued = this.issued.get(form.get('access_token') ?? '');
    const error =
      String(req.headers['content-type'] ?? '') !== 'application/x-www-form-urlencoded'
        ? 'the exchange is a form post'
        : seen.grantType !== 'access_token_refresh_token'
          ? `grant_type ${seen.grantType} is not access_token_refresh_token`
          : seen.service !== loginServer
            ? `service ${seen.service} is not ${loginServer}`
            : !issued
              ? 'access_token was not issued by the fake identity endpoint'
              : issued.resource !== ACR_RESOURCE
                ? `access_token is for ${issued.resource}, not ${ACR_RESOURCE}`
                : seen.tenant !== this.o.tenantId
                  ? `tenant ${seen.tenant} is not ${this.o.tenantId}`
                  : undefined;
    if (error) return reply(401, { errors: [{ code: 'UNAUTHORIZED', message: error }] }, { ...seen, error });
    reply(200, { refresh_token: this.o.refreshToken(loginServer) }, { ...seen, identity: issued!.identity });
  }
}

type Endpoint = 'identity' | 'acr' | 'aad';
type Reply = (
  status: number,
  body: unknown,
  extra: Partial<FakeAzureRequest>,
  headers?: Record<string, string>,
) => void;

/** The path and the query's non-secret parameters (no token ever travels in a query here, but say so by construction). */
function publicPath(url: URL): string {
  const keep = ['api-version', 'resource', 'client_id'];
  const q = [...url.searchParams.entries()].filter(([k]) => keep.includes(k));
  return q.length === 0 ? url.pathname : `${url.pathname}?${new URLSearchParams(q).toString()}`;
}
