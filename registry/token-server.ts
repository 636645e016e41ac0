// The harness's registry token server (distribution's token auth spec).
// - GET  /token?service=&scope=&account=  with Basic auth  (docker, skopeo, containerd without POST)
// - POST /token  form grant_type=password&client_id&username&password&scope&service  (containerd with credentials)
// Tokens are RS256 JWTs with an x5c header, so distribution v2 and v3 both
// verify them against the rootcertbundle. Users can be added, rotated and
// revoked while it runs; anonymous requests get 401.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { importPKCS8, SignJWT } from 'jose';
import { noopLogger, type Logger } from '../src/core/logger.ts';
import type { AccessRule, User } from './auth.ts';
import { parseScope, type ScopeItem } from './challenge.ts';
import { certDerBase64, type KeyPair } from '../src/core/tls.ts';

export interface UserStore {
  find(username: string): User | undefined;
}

/** Users held in memory; changes apply to the next token request. */
export class MemoryUsers implements UserStore {
  private readonly users = new Map<string, User>();
  constructor(users: User[] = []) {
    for (const u of users) this.users.set(u.username, { ...u });
  }
  find(username: string): User | undefined {
    return this.users.get(username);
  }
  list(): User[] {
    return [...this.users.values()];
  }
  add(user: User): void {
    this.users.set(user.username, { ...user });
  }
  rotate(username: string, password: string): void {
    const u = this.users.get(username);
    if (!u) throw new Error(`no user '${username}' to rotate`);
    this.users.set(username, { ...u, password });
  }
  revoke(username: string): void {
    this.users.delete(username);
  }
}

/** Users read from a JSON file (`{"users":[…]}`), re-read when it changes: for a token server in its own process. */
export class FileUsers implements UserStore {
  private readonly path: string;
  private mtime = -1;
  private users: User[] = [];
  constructor(path: string) {
    this.path = path;
  }
  find(username: string): User | undefined {
    const m = statSync(this.path, { throwIfNoEntry: false })?.mtimeMs ?? -1;
    if (m !== this.mtime) {
      this.mtime = m;
      this.users = m < 0 ? [] : (JSON.parse(readFileSync(this.path, 'utf8')) as { users: User[] }).users;
    }
    return this.users.find((u) => u.username === username);
  }
}

const DEFAULT_ACCESS: AccessRule[] = [{ repository: '*', actions: ['pull', 'push'] }];

/** `*` matches any run of characters, slashes included: `team/*`, `*`, `exact/name`. */
export function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return re.test(name);
}

/** What a user gets of what was asked: per repository, the asked actions their rules allow; nothing else. */
export function grantedAccess(user: Pick<User, 'access'>, requested: ScopeItem[]): ScopeItem[] {
  const rules = user.access ?? DEFAULT_ACCESS;
  const out: ScopeItem[] = [];
  for (const item of requested) {
    if (item.type !== 'repository') continue;
    const allowed = new Set(rules.filter((r) => globMatch(r.repository, item.name)).flatMap((r) => r.actions));
    const actions = item.actions.filter((a) => allowed.has('*') || allowed.has(a as AccessRule['actions'][number]));
    if (actions.length > 0) out.push({ type: item.type, name: item.name, actions });
  }
  return out;
}

/**
 * Decides a password grant before the user store: a user (with its access
 * rules) to mint for, `undefined` to refuse, or `'pass'` to fall back to the
 * user store. Token exchange (registry/sa-token-auth.ts) plugs in here.
 */
export type Authenticator = (username: string, password: string) => Promise<User | undefined | 'pass'>;

export interface TokenServerOptions {
  issuer: string;
  service: string;
  lifetimeSeconds: number;
  signing: KeyPair;
  users: UserStore;
  address?: string;
  port?: number;
  /** Host used in the realm URL (default: the bind address). */
  realmHost?: string;
  clock?: () => number;
  logger?: Logger;
}

/** One request as the token server saw it (no secrets): tests assert which flow a client used. */
export interface TokenRequestRecord {
  method: 'GET' | 'POST';
  account?: string;
  clientId?: string;
  scopes: string[];
  status: number;
  granted: ScopeItem[];
}

export class TokenServer {
  readonly requests: TokenRequestRecord[] = [];
  realm = '';
  private readonly o: TokenServerOptions;
  private readonly log: Logger;
  private server: Server | undefined;
  private key: Awaited<ReturnType<typeof importPKCS8>> | undefined;
  private x5c: string[] = [];
  private clockOverride: (() => number) | undefined;
  private authenticator: Authenticator | undefined;

  constructor(o: TokenServerOptions) {
    this.o = o;
    this.log = o.logger ?? noopLogger;
  }

  async start(): Promise<this> {
    this.key = await importPKCS8(await readFile(this.o.signing.keyPath, 'utf8'), 'RS256');
    this.x5c = [await certDerBase64(this.o.signing.certPath)];
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.o.port ?? 0, this.o.address ?? '127.0.0.1', () => resolve());
    });
    this.server = server;
    const port = (server.address() as AddressInfo).port;
    this.realm = `http://${this.o.realmHost ?? this.o.address ?? '127.0.0.1'}:${port}/token`;
    return this;
  }

  /** Moves the server's clock (ms since epoch) until reset with undefined: mints expired or not-yet-valid tokens. */
  setClock(clock: (() => number) | undefined): void {
    this.clockOverride = clock;
  }

  /** Puts `a` in front of the user store (undefined: the user store alone). */
  useAuthenticator(a: Authenticator | undefined): void {
    this.authenticator = a;
  }

  private now(): number {
    return (this.clockOverride ?? this.o.clock ?? Date.now)();
  }

  /** Signs a token for `subject` with exactly `access`. */
  async mint(subject: string, access: ScopeItem[]): Promise<{ token: string; expiresIn: number; issuedAt: string }> {
    if (!this.key) throw new Error('token server not started');
    const now = Math.floor(this.now() / 1000);
    const token = await new SignJWT({ access })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', x5c: this.x5c })
      .setIssuer(this.o.issuer)
      .setSubject(subject)
      .setAudience(this.o.service)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + this.o.lifetimeSeconds)
      .setJti(randomUUID())
      .sign(this.key);
    return { token, expiresIn: this.o.lifetimeSeconds, issuedAt: new Date(now * 1000).toISOString() };
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://token');
    try {
      if (url.pathname !== '/token') return json(res, 404, { error: 'not_found' });
      if (req.method === 'GET') return await this.handleGet(req, url, res);
      if (req.method === 'POST') return await this.handlePost(req, res);
      res.setHeader('allow', 'GET, POST');
      return json(res, 405, { error: 'method_not_allowed' });
    } catch (err) {
      this.log.error(`token request failed: ${(err as Error).message}`);
      return json(res, 500, { error: 'server_error' });
    }
  }

  private async handleGet(req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> {
    const scopes = url.searchParams
      .getAll('scope')
      .flatMap((s) => s.split(' '))
      .filter(Boolean);
    const basic = parseBasic(req.headers.authorization);
    const record: TokenRequestRecord = {
      method: 'GET',
      scopes,
      status: 401,
      granted: [],
      ...(basic ? { account: basic.username } : {}),
    };
    this.requests.push(record);
    res.once('finish', () => this.logRequest(record));
    if (!basic) {
      res.setHeader('www-authenticate', 'Basic realm="credprov token server"');
      return json(res, 401, { errors: [{ code: 'UNAUTHORIZED', message: 'authentication required' }] });
    }
    const user = await this.verify(basic.username, basic.password);
    if (!user || !this.serviceOk(url.searchParams.get('service'))) {
      res.setHeader('www-authenticate', 'Basic realm="credprov token server"');
      return json(res, 401, {
        errors: [{ code: 'UNAUTHORIZED', message: user ? 'unknown service' : 'invalid username or password' }],
      });
    }
    record.granted = grantedAccess(
      user,
      scopes.map(parseScope).filter((s): s is ScopeItem => !!s),
    );
    const t = await this.mint(user.username, record.granted);
    record.status = 200;
    return json(res, 200, { token: t.token, access_token: t.token, expires_in: t.expiresIn, issued_at: t.issuedAt });
  }

  private async handlePost(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    const scopes = (form.get('scope') ?? '').split(' ').filter(Boolean);
    const username = form.get('username') ?? '';
    const clientId = form.get('client_id') ?? undefined;
    const record: TokenRequestRecord = {
      method: 'POST',
      scopes,
      status: 400,
      granted: [],
      ...(username ? { account: username } : {}),
      ...(clientId ? { clientId } : {}),
    };
    this.requests.push(record);
    res.once('finish', () => this.logRequest(record));
    if (form.get('grant_type') !== 'password') return json(res, 400, { error: 'unsupported_grant_type' });
    if (!clientId) return json(res, 400, { error: 'invalid_request', error_description: 'client_id required' });
    const user = await this.verify(username, form.get('password') ?? '');
    if (!user || !this.serviceOk(form.get('service'))) {
      record.status = 401;
      return json(res, 401, { error: 'invalid_grant', error_description: 'invalid username or password' });
    }
    record.granted = grantedAccess(
      user,
      scopes.map(parseScope).filter((s): s is ScopeItem => !!s),
    );
    const t = await this.mint(user.username, record.granted);
    record.status = 200;
    return json(res, 200, {
      access_token: t.token,
      token_type: 'Bearer',
      expires_in: t.expiresIn,
      issued_at: t.issuedAt,
      scope: scopes.join(' '),
    });
  }

  // The access log a vendor reads when a pull fails: flow, account, asked and granted scopes; never a password.
  private logRequest(r: TokenRequestRecord): void {
    const granted = r.granted.map((g) => `${g.name}:${g.actions.join(',')}`).join(' ') || '-';
    this.log.info(
      `${r.method} account=${r.account ?? '-'}${r.clientId ? ` client_id=${r.clientId}` : ''} scope=${r.scopes.join(' ') || '-'} -> ${r.status} granted=${granted}`,
    );
  }

  private serviceOk(service: string | null): boolean {
    return !service || service === this.o.service;
  }

  private async verify(username: string, password: string): Promise<User | undefined> {
    if (this.authenticator) {
      const decided = await this.authenticator(username, password);
      if (decided !== 'pass') return decided;
    }
    const u = username ? this.o.users.find(username) : undefined;
    if (!u) return undefined;
    const a = Buffer.from(u.password);
    const b = Buffer.from(password);
    return a.length === b.length && timingSafeEqual(a, b) ? u : undefined;
  }
}

function parseBasic(h: string | undefined): { username: string; password: string } | undefined {
  const m = /^Basic\s+(.+)$/i.exec(h ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = text.indexOf(':');
  return i < 0 ? undefined : { username: text.slice(0, i), password: text.slice(i + 1) };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 64 * 1024) throw new Error('request body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
