// The harness's own OCI distribution client: ping, auth challenge, token
// fetch (OAuth2 POST and GET with Basic, as containerd and docker do), manifest
// HEAD/GET/PUT, monolithic blob upload. It pushes the test images and answers
// the oracle question "do these credentials open this image?".
import { noopLogger, type Logger } from '../src/core/logger.ts';
import { parseChallenges, repositoryScope, type Challenge } from './challenge.ts';
import {
  basicAuth,
  header,
  send,
  type HttpRequest,
  type HttpResponse,
  type TransportOptions,
} from '../src/core/http.ts';
import { MEDIA, type Blob, type BuiltImage } from './image/build.ts';
import { parseRef, refReference } from './reference.ts';

export interface Credentials {
  username: string;
  password: string;
}

export interface ClientOptions extends TransportOptions {
  /** `http://127.0.0.1:5000` or `https://registry.test:5000`. */
  baseUrl: string;
  credentials?: Credentials;
  /** How to ask a token server: `post` (OAuth2 password grant, GET fallback like containerd), or `get` (Basic, like docker/skopeo). */
  tokenMethod?: 'post' | 'get';
  /** OAuth2 client_id sent with POST grants. */
  clientId?: string;
  logger?: Logger;
}

export interface PullCheck {
  ok: boolean;
  /** HTTP status of the step that decided (0 when the connection failed). */
  status: number;
  /** One line: what happened, for a check message. */
  reason: string;
  /** Which step decided: ping, token, manifest, blob, connect. */
  step: 'connect' | 'ping' | 'token' | 'manifest' | 'blob';
}

const MANIFEST_ACCEPT = [
  MEDIA.manifest,
  MEDIA.index,
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
].join(', ');

export class RegistryError extends Error {
  readonly status: number;
  readonly step: PullCheck['step'];
  constructor(message: string, status: number, step: PullCheck['step']) {
    super(message);
    this.status = status;
    this.step = step;
  }
}

export class RegistryClient {
  private readonly opts: ClientOptions;
  private readonly log: Logger;
  private challenge: Challenge | undefined;
  private pinged = false;
  private readonly tokens = new Map<string, string>();

  constructor(opts: ClientOptions) {
    this.opts = { ...opts, baseUrl: opts.baseUrl.replace(/\/+$/, '') };
    this.log = opts.logger ?? noopLogger;
  }

  /** A client for the registry host of `ref` (`plainHttp` picks http://). */
  static forRef(ref: string, o: Omit<ClientOptions, 'baseUrl'> & { plainHttp?: boolean }): RegistryClient {
    const r = parseRef(ref);
    if (!r.host) throw new Error(`image reference '${ref}' names no registry host`);
    return new RegistryClient({ ...o, baseUrl: `${o.plainHttp ? 'http' : 'https'}://${r.host}` });
  }

  /** GET /v2/ without credentials: the status and the challenge the registry sends. */
  async ping(): Promise<{ status: number; challenges: Challenge[] }> {
    const res = await this.raw('/v2/');
    const challenges = parseChallenges(header(res, 'www-authenticate'));
    this.pinged = true;
    this.challenge = challenges.find((c) => c.scheme === 'bearer') ?? challenges.find((c) => c.scheme === 'basic');
    return { status: res.status, challenges };
  }

  /** Fetches a bearer token for `scopes` from the realm the registry named. */
  async token(scopes: string[]): Promise<string> {
    if (!this.pinged) await this.ping();
    const c = this.challenge;
    if (!c || c.scheme !== 'bearer') throw new RegistryError('registry does not use bearer tokens', 0, 'token');
    const key = scopes.join(' ');
    const cached = this.tokens.get(key);
    if (cached) return cached;
    const realm = c.params.realm;
    if (!realm) throw new RegistryError('bearer challenge has no realm', 0, 'token');
    const service = c.params.service ?? '';
    const creds = this.opts.credentials;
    let res: HttpResponse | undefined;
    if (creds && (this.opts.tokenMethod ?? 'post') === 'post') {
      const form = new URLSearchParams({
        grant_type: 'password',
        client_id: this.opts.clientId ?? 'credprov',
        username: creds.username,
        password: creds.password,
        service,
      });
      if (scopes.length) form.set('scope', scopes.join(' '));
      res = await send(
        realm,
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() },
        this.opts,
      );
      // containerd falls back to GET on these; so do we.
      if ([400, 401, 404, 405].includes(res.status)) {
        this.log.debug(`token POST to ${realm} answered ${res.status}; falling back to GET`);
        res = undefined;
      }
    }
    if (!res) {
      const u = new URL(realm);
      if (service) u.searchParams.set('service', service);
      for (const s of scopes) u.searchParams.append('scope', s);
      if (creds) u.searchParams.set('account', creds.username);
      res = await send(
        u,
        { headers: creds ? { authorization: basicAuth(creds.username, creds.password) } : {} },
        this.opts,
      );
    }
    if (res.status !== 200)
      throw new RegistryError(`token server ${realm} answered ${res.status}${errorDetail(res)}`, res.status, 'token');
    const body = res.json<{ token?: string; access_token?: string }>();
    const token = body.access_token ?? body.token;
    if (!token) throw new RegistryError(`token server ${realm} answered 200 without a token`, 200, 'token');
    this.tokens.set(key, token);
    return token;
  }

  /** Forgets cached tokens (after a rotation, or to force a fresh grant). */
  forgetTokens(): void {
    this.tokens.clear();
  }

  async manifestExists(name: string, reference: string): Promise<boolean> {
    const res = await this.authed('HEAD', `/v2/${name}/manifests/${reference}`, [repositoryScope(name, ['pull'])], {
      headers: { accept: MANIFEST_ACCEPT },
    });
    if (res.status === 200) return true;
    if (res.status === 404) return false;
    throw statusError(res, `HEAD manifest ${name}:${reference}`, 'manifest');
  }

  async getManifest(name: string, reference: string): Promise<{ mediaType: string; digest?: string; body: Buffer }> {
    const res = await this.authed('GET', `/v2/${name}/manifests/${reference}`, [repositoryScope(name, ['pull'])], {
      headers: { accept: MANIFEST_ACCEPT },
    });
    if (res.status !== 200) throw statusError(res, `GET manifest ${name}:${reference}`, 'manifest');
    const digest = header(res, 'docker-content-digest');
    return { mediaType: header(res, 'content-type') ?? '', ...(digest ? { digest } : {}), body: res.body };
  }

  async blobExists(name: string, digest: string, actions = ['pull']): Promise<boolean> {
    const res = await this.authed('HEAD', `/v2/${name}/blobs/${digest}`, [repositoryScope(name, actions)]);
    if (res.status === 200) return true;
    if (res.status === 404) return false;
    throw statusError(res, `HEAD blob ${name}@${digest}`, 'blob');
  }

  /** Monolithic upload: POST to open a session, PUT the whole blob with ?digest=. */
  async uploadBlob(name: string, b: Blob): Promise<void> {
    const scopes = [repositoryScope(name, ['pull', 'push'])];
    if (await this.blobExists(name, b.digest, ['pull', 'push'])) return;
    const start = await this.authed('POST', `/v2/${name}/blobs/uploads/`, scopes);
    if (start.status !== 202) throw statusError(start, `start upload to ${name}`, 'blob');
    const location = header(start, 'location');
    if (!location) throw new RegistryError(`upload to ${name}: 202 without Location`, 202, 'blob');
    const u = new URL(location, this.opts.baseUrl);
    u.searchParams.set('digest', b.digest);
    const put = await this.authed('PUT', u.pathname + u.search, scopes, {
      headers: { 'content-type': 'application/octet-stream' },
      body: b.data,
    });
    if (put.status !== 201) throw statusError(put, `upload blob ${b.digest} to ${name}`, 'blob');
  }

  async putManifest(name: string, reference: string, manifest: Blob): Promise<void> {
    const res = await this.authed(
      'PUT',
      `/v2/${name}/manifests/${reference}`,
      [repositoryScope(name, ['pull', 'push'])],
      { headers: { 'content-type': manifest.mediaType }, body: manifest.data },
    );
    if (res.status !== 201) throw statusError(res, `PUT manifest ${name}:${reference}`, 'manifest');
  }

  /** Pushes blobs (skipping those present) and then the manifest under the image's tag. */
  async push(image: BuiltImage, name = image.name, tag = image.tag): Promise<string> {
    for (const b of [...image.layers, image.config]) await this.uploadBlob(name, b);
    await this.putManifest(name, tag, image.manifest);
    return image.manifest.digest;
  }

  /**
   * Do this client's credentials open `name:reference`? Fetches the manifest and
   * HEADs its config blob, exactly the reads a pull starts with. Never throws
   * for an HTTP answer; a refused connection is `ok:false, step:'connect'`.
   */
  async canPull(name: string, reference: string): Promise<PullCheck> {
    try {
      const m = await this.getManifest(name, reference);
      const parsed = JSON.parse(m.body.toString()) as { config?: { digest?: string }; manifests?: unknown[] };
      if (parsed.config?.digest && !(await this.blobExists(name, parsed.config.digest))) {
        return {
          ok: false,
          status: 404,
          step: 'blob',
          reason: `manifest readable but config blob ${parsed.config.digest} missing`,
        };
      }
      return {
        ok: true,
        status: 200,
        step: 'manifest',
        reason: `pulled manifest ${m.digest ?? ''} of ${name}:${reference}`.trim(),
      };
    } catch (err) {
      if (err instanceof RegistryError) return { ok: false, status: err.status, step: err.step, reason: err.message };
      return {
        ok: false,
        status: 0,
        step: 'connect',
        reason: `cannot reach ${this.opts.baseUrl}: ${(err as Error).message}`,
      };
    }
  }

  /** Sends a request without credentials (for tests of anonymous access). */
  raw(path: string, req: HttpRequest = {}): Promise<HttpResponse> {
    return send(this.opts.baseUrl + path, req, this.opts);
  }

  private async authed(method: string, path: string, scopes: string[], req: HttpRequest = {}): Promise<HttpResponse> {
    if (!this.pinged) await this.ping();
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    const c = this.challenge;
    if (c?.scheme === 'basic' && this.opts.credentials)
      headers.authorization = basicAuth(this.opts.credentials.username, this.opts.credentials.password);
    if (c?.scheme === 'bearer') headers.authorization = `Bearer ${await this.token(scopes)}`;
    const res = await send(this.opts.baseUrl + path, { ...req, method, headers }, this.opts);
    this.log.debug(`${method} ${path} -> ${res.status}`);
    return res;
  }
}

function errorDetail(res: HttpResponse): string {
  try {
    const j = res.json<{
      errors?: Array<{ code?: string; message?: string }>;
      error?: string;
      error_description?: string;
    }>();
    if (j.errors?.length) return `: ${j.errors.map((e) => `${e.code ?? ''} ${e.message ?? ''}`.trim()).join('; ')}`;
    if (j.error) return `: ${j.error}${j.error_description ? ` (${j.error_description})` : ''}`;
  } catch {
    /* not JSON */
  }
  return '';
}

function statusError(res: HttpResponse, what: string, step: PullCheck['step']): RegistryError {
  return new RegistryError(`${what}: ${res.status}${errorDetail(res)}`, res.status, step);
}

/** Convenience for one-off checks: `canPull('registry.test:5000/credprov/busybox:latest', creds)`. */
export async function canPull(
  ref: string,
  credentials: Credentials | undefined,
  o: Omit<ClientOptions, 'baseUrl' | 'credentials'> & { plainHttp?: boolean } = {},
): Promise<PullCheck> {
  const r = parseRef(ref);
  const client = RegistryClient.forRef(ref, { ...o, ...(credentials ? { credentials } : {}) });
  return client.canPull(r.name, refReference(r));
}
