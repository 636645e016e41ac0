// A scriptable stand-in for kube-apiserver's HTTP surface, for the unit tests
// of the API client and its watches: discovery of core/v1 pods and events,
// list, watch (the test writes the events and decides when the stream ends),
// reads and server-side apply. Plain HTTP on loopback (the kubeconfig says
// insecure-skip-tls-verify, which client-node requires for http).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface WatchStream {
  /** pods or events */
  resource: string;
  query: URLSearchParams;
  send(type: string, object: unknown): void;
  end(): void;
  /** Resolves when the client closed the connection. */
  closed: Promise<void>;
}

export interface FakeApiServer {
  url: string;
  /** Every request as `METHOD path?query`, in order. */
  requests: string[];
  /** Bodies and headers of PATCH requests. */
  patches: Array<{ path: string; query: URLSearchParams; contentType: string | undefined; body: unknown }>;
  /** What a list of pods answers. */
  podList: () => { items: unknown[]; resourceVersion: string };
  /** What a list of events answers. */
  eventList: () => { items: unknown[]; resourceVersion: string };
  /** Called for each watch (pods, events) the client opens. */
  onWatch: (w: WatchStream) => void;
  /** Extra routes: return true when handled. */
  route: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean;
  writeKubeconfig(dir: string, o?: { token?: string }): Promise<string>;
  close(): Promise<void>;
}

const DISCOVERY = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: 'v1',
  resources: [
    {
      name: 'pods',
      singularName: 'pod',
      namespaced: true,
      kind: 'Pod',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'watch'],
    },
    { name: 'events', singularName: 'event', namespaced: true, kind: 'Event', verbs: ['list', 'watch'] },
  ],
};

export function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function status(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

export async function startFakeApiServer(): Promise<FakeApiServer> {
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeApiServer = {
    url: '',
    requests: [],
    patches: [],
    podList: () => ({ items: [], resourceVersion: '1' }),
    eventList: () => ({ items: [], resourceVersion: '1' }),
    onWatch: () => {},
    route: () => false,
    async writeKubeconfig(dir, o = {}) {
      const file = join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
      await writeFile(
        file,
        stringify({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'fake',
          clusters: [{ name: 'fake', cluster: { server: fake.url, 'insecure-skip-tls-verify': true } }],
          users: [{ name: 'admin', user: { token: o.token ?? 'fake-admin-token-0123456789' } }],
          contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'admin' } }],
        }),
      );
      return file;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    fake.requests.push(`${req.method} ${url.pathname}${url.search}`);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (fake.route(req, res, url)) return;
      if (req.method === 'GET' && url.pathname === '/api/v1') return json(res, 200, DISCOVERY);
      if (req.method === 'PATCH') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        fake.patches.push({
          path: url.pathname,
          query: url.searchParams,
          contentType: req.headers['content-type'],
          body,
        });
        return json(res, 200, {
          ...body,
          metadata: {
            ...(body.metadata as object),
            uid: 'uid-1',
            resourceVersion: '5',
            creationTimestamp: '2026-01-02T03:04:05Z',
          },
        });
      }
      const collection = /^\/api\/v1\/namespaces\/[^/]+\/(pods|events)$/.exec(url.pathname);
      if (req.method === 'GET' && collection) {
        const resource = collection[1]!;
        if (url.searchParams.get('watch') === 'true') {
          res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
          res.flushHeaders();
          const closed = new Promise<void>((resolve) => res.on('close', () => resolve()));
          fake.onWatch({
            resource,
            query: url.searchParams,
            send: (type, object) => res.write(`${JSON.stringify({ type, object })}\n`),
            end: () => res.end(),
            closed,
          });
          return;
        }
        const l = resource === 'pods' ? fake.podList() : fake.eventList();
        return json(res, 200, {
          kind: resource === 'pods' ? 'PodList' : 'EventList',
          apiVersion: 'v1',
          metadata: { resourceVersion: l.resourceVersion },
          items: l.items,
        });
      }
      const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && m) return json(res, 404, status(404, 'NotFound', `pods "${m[2]}" not found`));
      json(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** A pod as the API server sends it, at a resourceVersion, with its first container's state. */
export function podAt(
  resourceVersion: string,
  state: Record<string, unknown> | undefined,
  name = 'p',
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion },
    status: {
      phase: state?.terminated ? 'Succeeded' : 'Pending',
      ...(state
        ? { containerStatuses: [{ name: 'main', image: 'i', imageID: '', ready: false, restartCount: 0, state }] }
        : {}),
    },
  };
}

/** A core/v1 Event about pod `pod`, as the kubelet records it. */
export function eventAt(
  resourceVersion: string,
  name: string,
  reason: string,
  message: string,
  o: { count?: number; pod?: string; type?: string } = {},
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion },
    involvedObject: { kind: 'Pod', name: o.pod ?? 'p', namespace: 'default', fieldPath: 'spec.containers{main}' },
    type: o.type ?? (reason === 'Failed' ? 'Warning' : 'Normal'),
    reason,
    message,
    count: o.count ?? 1,
    firstTimestamp: '2026-01-02T03:04:05Z',
    lastTimestamp: '2026-01-02T03:04:05Z',
  };
}
