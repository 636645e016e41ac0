import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { ConfigError } from '../core/errors.ts';
import { json, startFakeApiServer, status, type FakeApiServer } from '../testing/fake-apiserver.ts';
import { useTempDir } from '../testing/tmp.ts';
import { ApiError, FIELD_MANAGER, closeKubeApis, isNotFound, kubeApi, unlessNotFound, type KubeApi } from './api.ts';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const tmp = useTempDir('credprov-api-');
const TOKEN = 'fake-admin-token-do-not-print-0123456789';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2lnbmF0dXJlc2lnbmF0dXJl';
let fake: FakeApiServer;
let api: KubeApi;

beforeAll(async () => {
  fake = await startFakeApiServer();
  api = await kubeApi({ kubeconfig: await fake.writeKubeconfig(tmp(), { token: TOKEN }) });
});
afterAll(async () => {
  await closeKubeApis();
  await fake.close();
});

describe('KubeApi', () => {
  test('applies server-side as the field manager credprov, forcing conflicts, and returns the stored object typed', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns1' },
      spec: { containers: [{ name: 'main', image: 'reg.test/x:v1', imagePullPolicy: 'Always' }] },
    };
    const [stored] = await api.apply<V1Pod>([pod]);
    const patch = fake.patches.at(-1)!;
    expect(patch.path).toBe('/api/v1/namespaces/ns1/pods/p');
    expect(patch.contentType).toBe('application/apply-patch+yaml');
    expect(patch.query.get('fieldManager')).toBe(FIELD_MANAGER);
    expect(patch.query.get('force')).toBe('true');
    expect(patch.body).toEqual(pod);
    expect(stored!.metadata?.uid).toBe('uid-1');
    expect(stored!.metadata?.creationTimestamp).toBeInstanceOf(Date);
    // The caller's object is left as it was given.
    expect(pod).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns1' },
      spec: { containers: [{ name: 'main', image: 'reg.test/x:v1', imagePullPolicy: 'Always' }] },
    });
  });

  test("a failed typed call is an ApiError naming the call, the object, the HTTP status and the API server's reason", async () => {
    const err = await api.core.readNamespacedPod({ name: 'missing', namespace: 'ns1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe(
      'readNamespacedPod ns1/missing: HTTP 404 NotFound: pods "missing" not found',
    );
    expect((err as ApiError).status).toBe(404);
    expect((err as ApiError).statusReason).toBe('NotFound');
    expect((err as ApiError).serverMessage).toBe('pods "missing" not found');
    expect(isNotFound(err)).toBe(true);
    await expect(
      unlessNotFound(api.core.readNamespacedPod({ name: 'missing', namespace: 'ns1' })),
    ).resolves.toBeUndefined();
  });

  test("a refusal that quotes a token shows neither it nor the kubeconfig's credentials", async () => {
    fake.route = (req, res, url) => {
      if (url.pathname !== '/api/v1/namespaces/ns1/pods/leaky') return false;
      json(res, 403, status(403, 'Forbidden', `token ${JWT} may not get pods`));
      return true;
    };
    try {
      const err = (await api.core
        .readNamespacedPod({ name: 'leaky', namespace: 'ns1' })
        .catch((e: unknown) => e)) as ApiError;
      expect(err.message).toBe('readNamespacedPod ns1/leaky: HTTP 403 Forbidden: token <redacted> may not get pods');
      expect(
        JSON.stringify({ message: err.message, detail: err.detail, hint: err.hint, cause: String(err.cause) }),
      ).not.toMatch(new RegExp(`${TOKEN}|${JWT}`));
    } finally {
      fake.route = () => false;
    }
  });

  test('a 401 keeps the reason client-node leaves of it', async () => {
    fake.route = (req, res, url) => {
      if (url.pathname !== '/api/v1/namespaces/ns1/pods/anon') return false;
      json(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
      return true;
    };
    try {
      await expect(api.core.readNamespacedPod({ name: 'anon', namespace: 'ns1' })).rejects.toThrow(
        new ApiError('readNamespacedPod ns1/anon: HTTP 401 Unauthorized', { status: 401 }),
      );
    } finally {
      fake.route = () => false;
    }
  });

  test('an API server that does not answer is named with its address and the reason, in one line', async () => {
    const port = await closedPort();
    const file = join(tmp(), 'kubeconfig-closed');
    await writeFile(
      file,
      `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:${port}', insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: ${TOKEN}}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n`,
    );
    const closed = await kubeApi({ kubeconfig: file });
    const err = (await closed.core.readNode({ name: 'n' }).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBeUndefined();
    expect(err.message).toMatch(new RegExp(`^readNode n: API server http://127\\.0\\.0\\.1:${port}: ECONNREFUSED`));
    expect(err.message).not.toContain('\n');
    expect(err.message).not.toContain(TOKEN);
  });

  test('raw GET returns the body as text and fails like the typed calls', async () => {
    fake.route = (req, res, url) => {
      if (url.pathname !== '/readyz') return false;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return true;
    };
    try {
      await expect(api.raw('/readyz')).resolves.toBe('ok');
      await expect(api.raw('/nothing/here')).rejects.toThrow(
        'GET /nothing/here: HTTP 404 NotFound: the server could not find the requested resource',
      );
    } finally {
      fake.route = () => false;
    }
  });

  test('one client per kubeconfig: the same file gives the same client, a rewritten one a new client', async () => {
    const file = await fake.writeKubeconfig(tmp());
    const a = await kubeApi({ kubeconfig: file });
    expect(await kubeApi({ kubeconfig: file })).toBe(a);
    await writeFile(file, `${await readFile(file, 'utf8')}\n# brought up again\n`);
    expect(await kubeApi({ kubeconfig: file })).not.toBe(a);
  });
});

describe('kubeApi with a bad kubeconfig', () => {
  test('a missing file is a ConfigError naming it', async () => {
    const file = join(tmp(), 'no-such-kubeconfig');
    await expect(kubeApi({ kubeconfig: file })).rejects.toThrow(
      new ConfigError(`cannot read kubeconfig ${file}: ENOENT`),
    );
  });

  test('a file that is not YAML is a ConfigError naming it, in one line that quotes none of the file', async () => {
    const file = join(tmp(), 'garbage-kubeconfig');
    await writeFile(file, `users:\n  - name: u\n    user: {token: ${TOKEN}\n  bad: [\n`);
    const err = (await kubeApi({ kubeconfig: file }).catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(new RegExp(`^kubeconfig ${file} cannot be loaded: `));
    expect(err.message).not.toContain(TOKEN);
    expect(err.message).not.toContain('\n');
  });

  test('a kubeconfig without a current cluster says so', async () => {
    const file = join(tmp(), 'empty-kubeconfig');
    await writeFile(file, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    await expect(kubeApi({ kubeconfig: file })).rejects.toThrow(
      new ConfigError(`kubeconfig ${file} has no current context with a cluster`),
    );
  });
});
