// The harness's client of the API server: @kubernetes/client-node over an
// environment's admin kubeconfig (the local cluster's loopback address and
// CA). Typed objects, server-side apply under the field manager `credprov`,
// and watches (src/cluster/watch.ts) instead of polling. Every failure
// becomes an ApiError naming the call, the object, the HTTP status and the
// API server's reason; client-node's own error text (which carries the
// response body and headers) never reaches a log.
//
// kubectl (src/cluster/kubectl.ts) stays where kubectl itself is the thing
// used or tested: the exec-plugin clients (src/clients/), the existing
// provider's check that kubectl is there for them, and commands printed for a
// user to copy.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  ApiException,
  AuthenticationV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  RbacAuthorizationV1Api,
  RequestContext,
  ServerConfiguration,
  Watch,
  createConfiguration,
  type Configuration,
  type KubernetesObject,
  type Middleware,
  type ResponseContext,
} from '@kubernetes/client-node';
// Not re-exported by the package's index; the typed APIs decode their answers with it, and watch events need the same.
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';
import { ConfigError, CredprovError, errorMessage } from '../core/errors.ts';
import { Redactor } from '../core/redact.ts';

/** The field manager of every object the harness applies. */
export const FIELD_MANAGER = 'credprov';

/** Where the API server is: an admin kubeconfig (an Environment is one). */
export interface ApiTarget {
  kubeconfig: string;
}

/** A request that did not get the answer it asked for. `status` is the HTTP status (undefined: no answer at all). */
export class ApiError extends CredprovError {
  readonly status: number | undefined;
  /** The API server's Status.reason: NotFound, AlreadyExists, Invalid, Forbidden, Expired … */
  readonly statusReason: string | undefined;
  /** The API server's own sentence (Status.message, scrubbed), as kubectl would print it. */
  readonly serverMessage: string | undefined;

  constructor(reason: string, o: { status?: number; statusReason?: string; serverMessage?: string; hint?: string }) {
    super(reason, o.hint ? { hint: o.hint } : {});
    this.status = o.status;
    this.statusReason = o.statusReason;
    this.serverMessage = o.serverMessage;
  }
}

export const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.status === 404;

/** `undefined` where the object is not there; any other failure is thrown. */
export async function unlessNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

// Shapes only (JWTs, private keys): an API server's message may quote a token it refused.
const scrubber = new Redactor();

interface Status {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
}

function statusOf(body: unknown): Status | undefined {
  let v = body;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      return undefined;
    }
  }
  return v && typeof v === 'object' && (v as Status).kind === 'Status' ? (v as Status) : undefined;
}

/** client-node's failure (ApiException, fetch errors) as one line: `<call>: HTTP 404 NotFound: pods "x" not found`. */
export function apiError(err: unknown, call: string, server?: string): CredprovError {
  if (err instanceof CredprovError) return err;
  if (err instanceof ApiException) {
    const code = err.code as number;
    const status = statusOf(err.body);
    // For the codes its OpenAPI spec lists (401) client-node keeps only a word ("Unauthorized"), not the Status.
    const word = status ? undefined : /^Message: (.*)$/m.exec(err.message)?.[1];
    const reason = status?.reason ?? (word && /^[A-Z][A-Za-z]+$/.test(word) ? word : undefined);
    const why = status?.message ?? (typeof err.body === 'string' ? (err.body.split('\n')[0] ?? '') : '');
    return new ApiError(
      scrubber.text(`${call}: HTTP ${code}${reason ? ` ${reason}` : ''}${why ? `: ${why.slice(0, 400)}` : ''}`),
      {
        status: code,
        ...(reason ? { statusReason: reason } : {}),
        ...(status?.message ? { serverMessage: scrubber.text(status.message) } : {}),
      },
    );
  }
  // A watch the server refused: client-node's Watch keeps only the status.
  const statusCode = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number')
    return new ApiError(scrubber.text(`${call}: HTTP ${statusCode} ${errorMessage(err)}`), { status: statusCode });
  // No answer: fetch says "fetch failed" and keeps the reason in its cause (ECONNREFUSED, a certificate error, a timeout).
  // (Duck-typed: a socket's error comes from another realm than undici's under jest.)
  const e = (err ?? {}) as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const cause = typeof e.cause?.message === 'string' ? e.cause : undefined;
  const reason =
    e.name === 'TimeoutError' || e.name === 'AbortError'
      ? 'no answer in time'
      : cause
        ? `${cause.code ? `${cause.code}: ` : ''}${cause.message}`
        : errorMessage(err);
  return new ApiError(scrubber.text(`${call}: ${server ? `API server ${server}: ` : ''}${reason.split('\n')[0]}`), {
    hint: 'is the environment up? (`credprov status`)',
  });
}

/** What a typed call was about, from its parameter object: `readNamespacedPod default/x`. */
function describeCall(method: string, param: unknown): string {
  const p = (param && typeof param === 'object' ? param : {}) as {
    name?: unknown;
    namespace?: unknown;
    body?: { kind?: unknown; metadata?: { name?: unknown } };
  };
  const name =
    typeof p.name === 'string' ? p.name : typeof p.body?.metadata?.name === 'string' ? p.body.metadata.name : undefined;
  const ns = typeof p.namespace === 'string' ? `${p.namespace}/` : '';
  return name ? `${method} ${ns}${name}` : ns ? `${method} in ${ns.slice(0, -1)}` : method;
}

/** `api` with every method's failure turned into an ApiError (the typed APIs keep their types). */
function guarded<T extends object>(api: T, server: string): T {
  return new Proxy(api, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return async (...args: unknown[]) => {
        try {
          return await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (err) {
          throw apiError(err, describeCall(prop, args[0]), server);
        }
      };
    },
  });
}

/**
 * client-node makes a new connection pool for every request (a TLS handshake
 * each time); one pool per kubeconfig keeps connections alive between calls
 * and watches. Idle connections do not keep the process alive (undici unrefs them).
 */
class PooledKubeConfig extends KubeConfig {
  private pool: ReturnType<RequestContext['getDispatcher']>;

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const fresh = context.getDispatcher();
    if (!fresh) return;
    this.pool ??= fresh;
    context.setDispatcher(this.pool);
  }

  async closePool(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy().catch(() => {});
  }
}

/** Resolves the collection path of any kind through discovery (client-node's own, cached). */
class ObjectApi extends KubernetesObjectApi {
  static forConfig(kc: KubeConfig, configuration: Configuration): ObjectApi {
    const api = new ObjectApi(configuration);
    api.setDefaultNamespace(kc);
    return api;
  }

  collectionPath(apiVersion: string, kind: string, namespace?: string): Promise<string> {
    return this.specUriPath({ apiVersion, kind, metadata: namespace ? { namespace } : {} }, 'list');
  }
}

const REQUEST_TIMEOUT_MS = 60_000;

/** Every request gives up after REQUEST_TIMEOUT_MS (watches have their own inactivity limit). */
const requestTimeout: Middleware = {
  async pre(context: RequestContext) {
    if (!context.getSignal()) context.setSignal(AbortSignal.timeout(REQUEST_TIMEOUT_MS));
    return context;
  },
  async post(context: ResponseContext) {
    return context;
  },
};

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export class KubeApi {
  readonly server: string;
  readonly core: CoreV1Api;
  readonly rbac: RbacAuthorizationV1Api;
  readonly authentication: AuthenticationV1Api;
  readonly authorization: AuthorizationV1Api;
  private readonly objects: ObjectApi;
  private readonly watcher: Watch;
  private readonly kc: PooledKubeConfig;

  constructor(kc: PooledKubeConfig) {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new ConfigError('the kubeconfig has no current context with a cluster');
    this.kc = kc;
    this.server = cluster.server;
    const configuration = createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kc },
      promiseMiddleware: [requestTimeout],
    });
    this.core = guarded(new CoreV1Api(configuration), this.server);
    this.rbac = guarded(new RbacAuthorizationV1Api(configuration), this.server);
    this.authentication = guarded(new AuthenticationV1Api(configuration), this.server);
    this.authorization = guarded(new AuthorizationV1Api(configuration), this.server);
    this.objects = ObjectApi.forConfig(kc, configuration);
    this.watcher = new Watch(kc);
  }

  /**
   * Server-side apply, in order (a namespace before what goes in it), as the
   * field manager `credprov`, taking over fields another manager set (as
   * `kubectl apply --server-side --force-conflicts` did). Returns the objects as stored.
   */
  async apply<T extends KubernetesObject = KubernetesObject>(
    objects: ReadonlyArray<KubernetesObject & Record<string, unknown>>,
  ): Promise<T[]> {
    const out: T[] = [];
    for (const o of objects) {
      const what = `apply ${o.kind ?? 'object'} ${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name ?? '(no name)'}`;
      try {
        // client-node fills in apiVersion and namespace on the object it is given: give it a copy.
        out.push(
          (await this.objects.patch(
            structuredClone(o),
            undefined,
            undefined,
            FIELD_MANAGER,
            true,
            PatchStrategy.ServerSideApply,
          )) as T,
        );
      } catch (err) {
        throw apiError(err, what, this.server);
      }
    }
    return out;
  }

  /** GET of a path that has no typed call (/readyz, the issuer's discovery, a node proxy): the body as text. */
  async raw(path: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<string> {
    try {
      const context = new RequestContext(this.server + path, HttpMethod.GET);
      await this.kc.applySecurityAuthentication(context);
      context.setSignal(AbortSignal.timeout(timeoutMs));
      const response = await new IsomorphicFetchHttpLibrary().send(context).toPromise();
      const body = await response.body.text();
      if (response.httpStatusCode < 200 || response.httpStatusCode > 299)
        throw new ApiException(response.httpStatusCode, 'raw GET', body, response.headers);
      return body;
    } catch (err) {
      throw apiError(err, `GET ${path}`, this.server);
    }
  }

  /**
   * A request whose HTTP status is the observation (a refusal is an answer, not
   * an error): the status and the body as text. Throws only when there is no answer.
   */
  async send(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    timeoutMs = REQUEST_TIMEOUT_MS,
  ): Promise<{ status: number; body: string }> {
    try {
      const context = new RequestContext(this.server + path, method === 'GET' ? HttpMethod.GET : HttpMethod.POST);
      await this.kc.applySecurityAuthentication(context);
      context.setSignal(AbortSignal.timeout(timeoutMs));
      if (body !== undefined) {
        context.setHeaderParam('Content-Type', 'application/json');
        context.setBody(JSON.stringify(body));
      }
      const response = await new IsomorphicFetchHttpLibrary().send(context).toPromise();
      return { status: response.httpStatusCode, body: await response.body.text() };
    } catch (err) {
      throw apiError(err, `${method} ${path}`, this.server);
    }
  }

  /** The path a watch of `kind` uses (e.g. /api/v1/namespaces/default/pods). */
  collectionPath(apiVersion: string, kind: string, namespace?: string): Promise<string> {
    return this.objects.collectionPath(apiVersion, kind, namespace).catch((err: unknown) => {
      throw apiError(err, `discover ${apiVersion} ${kind}`, this.server);
    });
  }

  /** A wire object as client-node's typed model (dates become Date), e.g. decode<V1Pod>(o, 'V1Pod'). */
  decode<T>(object: unknown, type: string): T {
    return ObjectSerializer.deserialize(object, type) as T;
  }

  /**
   * Opens one watch; `done` is called once when it ends (server closed it,
   * an error, or abort()). Resolves once the API server answered, with the
   * handle that closes it. Use watchObjects (watch.ts) for restarts and 410s.
   */
  async openWatch(
    path: string,
    query: Record<string, string | boolean>,
    onEvent: (type: WatchEventType, object: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    return this.watcher.watch(
      path,
      query,
      (type: string, object: unknown) => onEvent(type as WatchEventType, object),
      done,
    );
  }

  /** Closes pooled connections (a later call opens new ones). */
  close(): Promise<void> {
    return this.kc.closePool();
  }
}

const clients = new Map<string, { text: string; api: KubeApi }>();

/**
 * The client for an environment. One per kubeconfig file and content: an
 * environment brought up again under the same name has a new CA, and gets a new client.
 */
export async function kubeApi(t: ApiTarget): Promise<KubeApi> {
  let text: string;
  try {
    text = await readFile(t.kubeconfig, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `cannot read kubeconfig ${t.kubeconfig}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}`,
      { file: t.kubeconfig },
    );
  }
  const known = clients.get(t.kubeconfig);
  if (known?.text === text) return known.api;
  const kc = new PooledKubeConfig();
  try {
    kc.loadFromString(text);
    kc.makePathsAbsolute(dirname(t.kubeconfig));
  } catch (err) {
    // The parser's message may quote the file (keys, tokens): its first line only.
    throw new ConfigError(
      `kubeconfig ${t.kubeconfig} cannot be loaded: ${scrubber.text(errorMessage(err).split('\n')[0] ?? '')}`,
      { file: t.kubeconfig },
    );
  }
  if (!kc.getCurrentCluster())
    throw new ConfigError(`kubeconfig ${t.kubeconfig} has no current context with a cluster`, { file: t.kubeconfig });
  const api = new KubeApi(kc);
  clients.set(t.kubeconfig, { text, api });
  return api;
}

/** Closes every client's connections (for tests that check nothing is left open). */
export async function closeKubeApis(): Promise<void> {
  await Promise.all([...clients.values()].map((c) => c.api.close()));
  clients.clear();
}
