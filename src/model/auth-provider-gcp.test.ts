// The auth-provider-gcp model: each flow's requests and answer, the env's
// cache settings, and the failures that still exit 0. The shapes here are the
// ones the real binary printed against a fake metadata server (2026-11-29).
import { describe, expect, test } from '@jest/globals';
import {
  GCE_METADATA_HOST,
  GCR_AUTH_KEYS,
  parseDockercfg,
  predictGcpPlugin,
  staleTokenWindowMs,
  type MetadataAnswer,
} from './auth-provider-gcp.ts';

const meta = `http://${GCE_METADATA_HOST}/computeMetadata/v1`;
const tokenAnswer = {
  status: 200,
  body: JSON.stringify({ access_token: 'ya29.x', expires_in: 3599, token_type: 'Bearer' }),
};
const emailAnswer = { status: 200, body: 'node@p.iam.gserviceaccount.com' };
function server(answers: Record<string, MetadataAnswer>): (url: string) => MetadataAnswer {
  return (url) => answers[url] ?? { status: 404, body: '' };
}
const gcr = server({
  [`${meta}/instance/service-accounts/default/token`]: tokenAnswer,
  [`${meta}/instance/service-accounts/default/email`]: emailAnswer,
});

describe('gcr flow', () => {
  test('asks token then email with Metadata-Flavor, and answers _token for the four registry keys, Image, 0s', () => {
    const p = predictGcpPlugin({ answer: gcr });
    expect(p).toEqual({
      exitCode: 0,
      requests: [
        { url: `${meta}/instance/service-accounts/default/token`, metadataFlavor: true },
        { url: `${meta}/instance/service-accounts/default/email`, metadataFlavor: true },
      ],
      response: {
        kind: 'CredentialProviderResponse',
        apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
        cacheKeyType: 'Image',
        cacheDuration: '0s',
        auth: Object.fromEntries(GCR_AUTH_KEYS.map((k) => [k, { username: '_token', password: 'ya29.x' }])),
      },
      notes: [],
    });
  });

  test.each([
    ['the metadata server is unreachable', () => 'unreachable' as const, 1],
    [
      'the token answer is 403',
      server({ [`${meta}/instance/service-accounts/default/token`]: { status: 403, body: '' } }),
      1,
    ],
    ['the email is missing', server({ [`${meta}/instance/service-accounts/default/token`]: tokenAnswer }), 2],
    [
      'the token is not JSON',
      server({
        [`${meta}/instance/service-accounts/default/token`]: { status: 200, body: 'x' },
        [`${meta}/instance/service-accounts/default/email`]: emailAnswer,
      }),
      2,
    ],
  ])('%s: exit 0 with no auth at all (omitempty)', (_, answer, requests) => {
    const p = predictGcpPlugin({ answer });
    expect(p.exitCode).toBe(0);
    expect(p.exitCode === 0 && p.response).toEqual({
      kind: 'CredentialProviderResponse',
      apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
      cacheKeyType: 'Image',
      cacheDuration: '0s',
    });
    expect(p.requests).toHaveLength(requests);
  });

  test('a token answer without access_token gives entries with an empty password', () => {
    const p = predictGcpPlugin({
      answer: server({
        [`${meta}/instance/service-accounts/default/token`]: { status: 200, body: '{}' },
        [`${meta}/instance/service-accounts/default/email`]: emailAnswer,
      }),
    });
    expect(p.exitCode === 0 && p.response.auth?.['gcr.io']).toEqual({ username: '_token', password: '' });
  });
});

describe('cache settings from the env', () => {
  test.each([
    [{}, 'Image', '0s'],
    [{ KUBE_SIDECAR_CACHE_TYPE: 'registry', KUBE_SIDECAR_CACHE_DURATION: '2h' }, 'Registry', '2h0m0s'],
    [{ KUBE_SIDECAR_CACHE_TYPE: 'global', KUBE_SIDECAR_CACHE_DURATION: '90s' }, 'Global', '1m30s'],
    [{ KUBE_SIDECAR_CACHE_TYPE: 'image' }, 'Image', '0s'],
  ])('%j → %s, %s', (env, cacheKeyType, cacheDuration) => {
    const p = predictGcpPlugin({ answer: gcr, env });
    expect(p.exitCode === 0 && p.response).toMatchObject({ cacheKeyType, cacheDuration });
  });

  test('a bad value fails after the metadata calls were made', () => {
    const bad = predictGcpPlugin({ answer: gcr, env: { KUBE_SIDECAR_CACHE_TYPE: 'bogus' } });
    expect(bad).toMatchObject({ exitCode: 1, error: expect.stringContaining('Unknown cache key "bogus"') });
    expect(bad.requests).toHaveLength(2);
    const dur = predictGcpPlugin({ answer: gcr, env: { KUBE_SIDECAR_CACHE_DURATION: 'bad' } });
    expect(dur).toMatchObject({ exitCode: 1, error: expect.stringContaining('invalid duration') });
  });

  test('a duration longer than the token lives is a window of pulls with an expired token', () => {
    expect(staleTokenWindowMs('2h0m0s', 3599)).toBe(7200_000 - 3599_000);
    expect(staleTokenWindowMs('0s', 3599)).toBe(0);
  });
});

describe('dockercfg flows', () => {
  const cfg = JSON.stringify({
    'https://registry.example': { auth: Buffer.from('u:p:with:colons').toString('base64') },
    'gcr.io': { username: 'a', password: 'b', email: 'e' },
  });
  test('dockercfg: the attribute is the answer, its keys the auth keys, auth over username/password', () => {
    const p = predictGcpPlugin({
      flow: 'dockercfg',
      answer: server({ [`${meta}/instance/attributes/google-dockercfg`]: { status: 200, body: cfg } }),
    });
    expect(p.exitCode === 0 && p.response.auth).toEqual({
      'https://registry.example': { username: 'u', password: 'p:with:colons' },
      'gcr.io': { username: 'a', password: 'b' },
    });
  });

  test('dockercfg-url: the URL is fetched without Metadata-Flavor; a non-http URL gives nothing', () => {
    const p = predictGcpPlugin({
      flow: 'dockercfg-url',
      answer: server({
        [`${meta}/instance/attributes/google-dockercfg-url`]: { status: 200, body: 'http://cfg.example/x' },
        'http://cfg.example/x': { status: 200, body: cfg },
      }),
    });
    expect(p.requests.map((r) => r.metadataFlavor)).toEqual([true, false]);
    expect(p.exitCode === 0 && Object.keys(p.response.auth ?? {})).toHaveLength(2);
    const gs = predictGcpPlugin({
      flow: 'dockercfg-url',
      answer: server({ [`${meta}/instance/attributes/google-dockercfg-url`]: { status: 200, body: 'gs://b/o' } }),
    });
    expect(gs).toMatchObject({ exitCode: 0, notes: ['Unsupported URL scheme: gs://b/o'] });
  });

  test('a malformed dockercfg or auth field gives nothing', () => {
    expect(parseDockercfg('[]')).toEqual({});
    expect(parseDockercfg(JSON.stringify({ h: { auth: Buffer.from('nocolon').toString('base64') } }))).toEqual({});
    expect(parseDockercfg(JSON.stringify({ h: { username: 1 } }))).toEqual({});
  });

  test('an unknown flow fails before any request', () => {
    expect(predictGcpPlugin({ flow: 'x', answer: gcr })).toMatchObject({ exitCode: 1, requests: [] });
  });
});
