import { describe, expect, test } from '@jest/globals';
import type { ClientName } from '../clients/probe.ts';
import { ApiServerAuthModel, TOKEN_SUCCESS_CACHE_MS } from './apiserver-authn.ts';
import { clientSessionModel, type Credential, type ModelWorld } from './exec-credential-cache.ts';
import { pluginLaunch, type ClientSetting } from './exec-info.ts';

/** A plugin that hands out credential n on its n-th run, and a server that accepts what `accept` says. */
function world(
  answer: (n: number, now: number) => Credential,
  accept: (p: { token?: string; cert?: string }, now: number) => boolean,
): ModelWorld & { runs: number } {
  const w = {
    runs: 0,
    runPlugin(now: number) {
      w.runs++;
      return { ok: true as const, credential: answer(w.runs, now) };
    },
    serve(now: number, p: { token?: string; cert?: string }) {
      if (!p.token && !p.cert) return 403;
      return accept(p, now) ? 200 : 401;
    },
  };
  return w;
}

const trace = (client: ClientName, w: ModelWorld, times: number[]) => {
  const s = clientSessionModel(client, w);
  return times.map((t) => {
    const r = s.request(t);
    return `${r.status ?? 'error'}/${r.runs}`;
  });
};

describe('caching until expirationTimestamp', () => {
  const fresh = (lifeMs: number | undefined) =>
    world(
      (n, now) => ({ token: `t${n}`, ...(lifeMs === undefined ? {} : { expiresAt: now + lifeMs }) }),
      () => true,
    );

  test('client-go and client-node run once and reuse the credential until it expires, then run again; kubectl runs for every request', () => {
    expect(trace('client-go', fresh(4000), [0, 1000, 6000, 6500])).toEqual(['200/1', '200/0', '200/1', '200/0']);
    expect(trace('client-node', fresh(4000), [0, 1000, 6000, 6500])).toEqual(['200/1', '200/0', '200/1', '200/0']);
    expect(trace('kubectl', fresh(4000), [0, 1000, 6000, 6500])).toEqual(['200/1', '200/1', '200/1', '200/1']);
  });

  test('python refreshes 5 minutes early: a token living 4s (or 3 min) is fetched twice for the first request and once for every later one; one living an hour is kept', () => {
    expect(trace('python', fresh(4000), [0, 1000, 6000])).toEqual(['200/2', '200/1', '200/1']);
    expect(trace('python', fresh(180_000), [0, 1000])).toEqual(['200/2', '200/1']);
    expect(trace('python', fresh(3_600_000), [0, 1000, 6000])).toEqual(['200/1', '200/0', '200/0']);
  });

  test('without expirationTimestamp every long-lived client keeps the credential for good', () => {
    for (const c of ['client-go', 'client-node', 'python'] as const)
      expect(trace(c, fresh(undefined), [0, 3_600_000])).toEqual(['200/1', '200/0']);
  });

  test('an expirationTimestamp already past: client-go runs twice on a new connection (RoundTrip, then the TLS handshake), kubectl so on every request, client-node once per request', () => {
    expect(trace('client-go', fresh(-1000), [0, 100, 200])).toEqual(['200/2', '200/1', '200/1']);
    expect(trace('kubectl', fresh(-1000), [0, 100])).toEqual(['200/2', '200/2']);
    expect(trace('client-node', fresh(-1000), [0, 100])).toEqual(['200/1', '200/1']);
    expect(trace('python', fresh(-1000), [0, 100])).toEqual(['200/2', '200/1']);
  });
});

describe('401', () => {
  test('re-exec after a 401: client-go returns the 401, runs once more and the next request carries the new token; client-node and python never run again', () => {
    const badFirst = () =>
      world(
        (n) => ({ token: `t${n}`, expiresAt: 3_600_000 }),
        (p) => p.token !== 't1',
      );
    expect(trace('client-go', badFirst(), [0, 100, 200])).toEqual(['401/2', '200/0', '200/0']);
    expect(trace('kubectl', badFirst(), [0, 100])).toEqual(['401/2', '200/1']);
    expect(trace('client-node', badFirst(), [0, 100, 200])).toEqual(['401/1', '401/0', '401/0']);
    expect(trace('python', badFirst(), [0, 100, 200])).toEqual(['401/1', '401/0', '401/0']);
  });

  test('a plugin that returns the same refused token again: client-go runs once per 401 and never loops; kubectl twice per process', () => {
    const same = () =>
      world(
        () => ({ token: 'bad', expiresAt: 3_600_000 }),
        () => false,
      );
    expect(trace('client-go', same(), [0, 100, 200])).toEqual(['401/2', '401/1', '401/1']);
    expect(trace('kubectl', same(), [0, 100])).toEqual(['401/2', '401/2']);
    expect(trace('client-node', same(), [0, 100])).toEqual(['401/1', '401/0']);
    expect(trace('python', same(), [0, 100])).toEqual(['401/1', '401/0']);
  });

  test('a failed refresh after a 401 keeps the old credential, so the next 401 runs the plugin again (no negative cache)', () => {
    let n = 0;
    const w: ModelWorld = {
      runPlugin: () => (++n === 1 ? { ok: true, credential: { token: 'a' } } : { ok: false, error: 'exit status 1' }),
      serve: () => 401,
    };
    const s = clientSessionModel('client-go', w);
    expect(s.request(0)).toMatchObject({ status: 401, runs: 2 });
    expect(s.request(1)).toMatchObject({ status: 401, runs: 1 });
  });
});

describe('client certificates', () => {
  const certs = () =>
    world(
      (n, now) => ({ cert: `c${n}`, expiresAt: now + 4000 }),
      (p, now) => {
        const issuedAt = Number(p.cert!.slice(1)) === 1 ? 0 : 6000;
        return now <= issuedAt + 4000;
      },
    );

  test('rotation: client-go, client-node and kubectl use the new certificate after expiry; python keeps the first one for the life of the process', () => {
    expect(trace('client-go', certs(), [0, 1000, 6000, 6500])).toEqual(['200/1', '200/0', '200/1', '200/0']);
    expect(trace('client-node', certs(), [0, 1000, 6000, 6500])).toEqual(['200/1', '200/0', '200/1', '200/0']);
    expect(trace('python', certs(), [0, 1000, 6000, 6500])).toEqual(['200/1', '200/0', '401/0', '401/0']);
  });
});

describe('API server model', () => {
  test('a success is cached 10s from the review: a revoked token still gets 200 inside that window, 401 after; refusals are never cached', () => {
    let revoked = false;
    const reviews: number[] = [];
    const m = new ApiServerAuthModel({
      review: (_t, now) => {
        reviews.push(now);
        return revoked ? 'revoked' : 'authenticated';
      },
      certValid: () => false,
    });
    expect(m.serve(0, { token: 'a' }).status).toBe(200);
    revoked = true;
    expect(m.serve(TOKEN_SUCCESS_CACHE_MS - 1, { token: 'a' })).toMatchObject({ status: 200, reviewed: false });
    expect(m.serve(TOKEN_SUCCESS_CACHE_MS, { token: 'a' })).toMatchObject({ status: 401, reviewed: true });
    expect(m.serve(TOKEN_SUCCESS_CACHE_MS + 1, { token: 'a' })).toMatchObject({ status: 401, reviewed: true });
    expect(reviews).toEqual([0, TOKEN_SUCCESS_CACHE_MS, TOKEN_SUCCESS_CACHE_MS + 1]);
  });

  test('no credential is anonymous (403); a bad certificate is 401 unless a good token comes with it', () => {
    const m = new ApiServerAuthModel({
      review: (t) => (t === 'good' ? 'authenticated' : 'unknown'),
      certValid: (c) => c === 'ok',
    });
    expect(m.serve(0, {}).status).toBe(403);
    expect(m.serve(0, { cert: 'expired' }).status).toBe(401);
    expect(m.serve(0, { cert: 'expired', token: 'good' }).status).toBe(200);
    expect(m.serve(0, { cert: 'ok', token: 'bad' }).status).toBe(200);
  });
});

describe('what the plugin is told', () => {
  const setting = (o: Partial<ClientSetting['user']> & { terminal?: boolean } = {}): ClientSetting => ({
    user: {
      apiVersion: o.apiVersion ?? 'client.authentication.k8s.io/v1',
      interactiveMode: o.interactiveMode ?? 'Never',
      provideClusterInfo: o.provideClusterInfo ?? false,
    },
    cluster: {
      raw: {
        server: 'https://127.0.0.1:6443',
        'certificate-authority': '/ca.crt',
        extensions: [{ name: 'client.authentication.k8s.io/exec', extension: { audience: 'x' } }],
      },
      server: 'https://127.0.0.1:6443',
      caData: 'Q0E=',
    },
    terminal: o.terminal ?? false,
  });

  test('client-go: interactive only with IfAvailable or Always and a terminal; Always without one refuses to run the plugin', () => {
    expect(pluginLaunch('client-go', setting({ interactiveMode: 'IfAvailable', terminal: true }))).toMatchObject({
      runs: true,
      execInfo: { spec: { interactive: true } },
      stdinIsTerminal: true,
    });
    expect(pluginLaunch('client-go', setting({ interactiveMode: 'IfAvailable' }))).toMatchObject({
      runs: true,
      execInfo: { spec: { interactive: false } },
      stdinIsTerminal: false,
    });
    expect(pluginLaunch('kubectl', setting({ interactiveMode: 'Never', terminal: true }))).toMatchObject({
      runs: true,
      execInfo: { spec: { interactive: false } },
      stdinIsTerminal: false,
    });
    expect(pluginLaunch('client-go', setting({ interactiveMode: 'Always' }))).toMatchObject({
      runs: false,
      error: expect.stringContaining('standard input is not a terminal'),
    });
  });

  test('provideClusterInfo: client-go inlines the CA and adds the extension as config; python passes its kubeconfig mapping plus config; client-node says nothing at all', () => {
    expect(pluginLaunch('client-go', setting({ provideClusterInfo: true }))).toMatchObject({
      execInfo: {
        spec: {
          cluster: {
            server: 'https://127.0.0.1:6443',
            'certificate-authority-data': 'Q0E=',
            config: { audience: 'x' },
          },
        },
      },
    });
    const py = pluginLaunch('python', setting({ provideClusterInfo: true }));
    expect(py).toMatchObject({
      execInfo: {
        spec: {
          cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority': '/ca.crt', config: { audience: 'x' } },
        },
      },
    });
    expect(pluginLaunch('client-node', setting({ provideClusterInfo: true }))).toMatchObject({
      runs: true,
      execInfo: null,
    });
    expect(pluginLaunch('client-go', setting())).toMatchObject({ execInfo: { spec: { interactive: false } } });
    expect(pluginLaunch('client-go', setting())).not.toHaveProperty('execInfo.spec.cluster');
  });

  test('python ignores interactiveMode: interactive follows the terminal, even for Never', () => {
    expect(pluginLaunch('python', setting({ interactiveMode: 'Never', terminal: true }))).toMatchObject({
      execInfo: { spec: { interactive: true } },
      stdinIsTerminal: true,
    });
    expect(pluginLaunch('python', setting({ interactiveMode: 'Always' }))).toMatchObject({
      runs: true,
      execInfo: { spec: { interactive: false } },
    });
  });
});
