import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeKubeApis } from '../cluster/api.ts';
import { json, startFakeApiServer, type FakeApiServer } from '../testing/fake-apiserver.ts';
import { useTempDir } from '../testing/tmp.ts';
import { clusterIdentity } from './cluster-identity.ts';

const tmp = useTempDir('credprov-cluster-identity-');
let fake: FakeApiServer;
let kubeconfig: string;
const JWKS = { keys: [{ kty: 'RSA', kid: 'k1', n: 'AQAB', e: 'AQAB' }] };

beforeAll(async () => {
  fake = await startFakeApiServer();
  kubeconfig = await fake.writeKubeconfig(tmp());
  fake.route = (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (url.pathname === '/.well-known/openid-configuration')
      return (
        json(res, 200, { issuer: 'https://kubernetes.default.svc', jwks_uri: 'https://10.0.0.1:6443/keys/v9' }),
        true
      );
    if (url.pathname === '/keys/v9' || url.pathname === '/openid/v1/jwks') return (json(res, 200, JWKS), true);
    if (req.method === 'POST' && url.pathname === '/apis/authentication.k8s.io/v1/tokenreviews')
      return (
        json(res, 201, {
          kind: 'TokenReview',
          status: { authenticated: true, user: { username: 'system:serviceaccount:ns:sa' } },
        }),
        true
      );
    return false;
  };
});
afterAll(async () => {
  await closeKubeApis();
  await fake.close();
});

describe('clusterIdentity', () => {
  test('JWKS from the default path until discovery names another; TokenReview answers with its status', async () => {
    const id = clusterIdentity({ kubeconfig });
    expect(await id.jwks()).toEqual(JWKS);
    expect(fake.requests).toContain('GET /openid/v1/jwks');
    expect((await id.discovery()).issuer).toBe('https://kubernetes.default.svc');
    expect(await id.jwks()).toEqual(JWKS);
    expect(fake.requests).toContain('GET /keys/v9');
    expect(await id.tokenReview('a-token', ['registry'])).toEqual({
      authenticated: true,
      user: { username: 'system:serviceaccount:ns:sa' },
    });
  });
});
