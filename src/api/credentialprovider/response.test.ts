import { describe, expect, test } from '@jest/globals';
import { decodeResponse, encodeRequest, KUBELET_DECODE_ERROR } from './response.ts';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const good = {
  apiVersion: V1,
  kind: 'CredentialProviderResponse',
  cacheKeyType: 'Registry',
  cacheDuration: '5m',
  auth: { 'reg.io': { username: 'u', password: 'p' } },
};
const text = (o: unknown = good) => JSON.stringify(o);
const reasonOf = (stdout: string, expected = V1) => {
  const r = decodeResponse(stdout, expected);
  return r.ok ? 'ok' : r.reason;
};

describe('decodeResponse accepts what the kubelet accepts', () => {
  test('one object, with trailing or leading whitespace', () => {
    expect(decodeResponse(`\n ${text()}\n\n`, V1)).toEqual({ ok: true, response: good });
  });

  test('optional fields may be absent or null', () => {
    const r = decodeResponse(
      text({
        apiVersion: V1,
        kind: 'CredentialProviderResponse',
        cacheKeyType: 'Global',
        cacheDuration: null,
        auth: null,
      }),
      V1,
    );
    expect(r).toEqual({
      ok: true,
      response: { apiVersion: V1, kind: 'CredentialProviderResponse', cacheKeyType: 'Global' },
    });
  });

  test('an auth entry without username or password has empty ones', () => {
    const r = decodeResponse(text({ ...good, auth: { 'reg.io': {} } }), V1);
    expect(r.ok && r.response.auth).toEqual({ 'reg.io': { username: '', password: '' } });
  });

  test.each(['v1alpha1', 'v1beta1'])('the older protocol version %s when that is the configured one', (v) => {
    expect(
      reasonOf(
        text({ ...good, apiVersion: `credentialprovider.kubelet.k8s.io/${v}` }),
        `credentialprovider.kubelet.k8s.io/${v}`,
      ),
    ).toBe('ok');
  });
});

describe('decodeResponse rejects, in the kubelet order, with a reason', () => {
  test.each([
    ['empty stdout', '', 'json'],
    ['a log line before the JSON', `starting\n${text()}`, 'json'],
    ['text after the JSON', `${text()}\ndone`, 'json'],
    ['two objects', `${text()}\n${text()}`, 'multipleObjects'],
    ['an array', '[]', 'json'],
    ['truncated JSON', text().slice(0, 30), 'json'],
    ['null (no apiVersion)', 'null', 'apiVersion'],
    ['another apiVersion', text({ ...good, apiVersion: 'credentialprovider.kubelet.k8s.io/v1beta1' }), 'apiVersion'],
    ['a missing kind', text({ ...good, kind: undefined }), 'kind'],
    ['the request kind', text({ ...good, kind: 'CredentialProviderRequest' }), 'kind'],
    ['an unknown field', text({ ...good, expiresAt: 'x' }), 'unknownField'],
    ['a wrongly cased field', text({ ...good, auth: { 'reg.io': { Username: 'u' } } }), 'unknownField'],
    [
      'a duplicate field',
      text().replace('"cacheKeyType":"Registry"', '"cacheKeyType":"Registry","cacheKeyType":"Image"'),
      'duplicateField',
    ],
    ['a duplicate auth key', text().replace('}}}', '},"reg.io":{"username":"x"}}}'), 'duplicateField'],
    ['a number for cacheKeyType', text({ ...good, cacheKeyType: 1 }), 'type'],
    ['a list for auth', text({ ...good, auth: [] }), 'type'],
    ['a number for a password', text({ ...good, auth: { 'reg.io': { username: 'u', password: 1 } } }), 'type'],
    ['an unparseable cacheDuration', text({ ...good, cacheDuration: '5 minutes' }), 'cacheDuration'],
    ['a numeric cacheDuration', text({ ...good, cacheDuration: 300 }), 'cacheDuration'],
    ['an empty cacheKeyType', text({ ...good, cacheKeyType: '' }), 'cacheKeyType'],
    ['cacheKeyType ServiceAccount (kind#4185)', text({ ...good, cacheKeyType: 'ServiceAccount' }), 'cacheKeyType'],
    ['a lowercase cacheKeyType', text({ ...good, cacheKeyType: 'registry' }), 'cacheKeyType'],
  ])('%s', (_what, stdout, reason) => {
    expect(reasonOf(stdout)).toBe(reason);
  });

  test('a wrong apiVersion carries the kubelet message', () => {
    expect(decodeResponse(text({ ...good, apiVersion: 'credentialprovider.kubelet.k8s.io/v1beta1' }), V1)).toEqual({
      ok: false,
      reason: 'apiVersion',
      error: `apiVersion from credential plugin response did not match expected apiVersion:${V1}, actual apiVersion:credentialprovider.kubelet.k8s.io/v1beta1`,
    });
  });

  test('decoder failures name what the kubelet hides behind its generic message', () => {
    const r = decodeResponse(text({ ...good, expiresAt: 'x' }), V1);
    expect(!r.ok && r.error).toBe(
      `strict decoding error: unknown field "expiresAt" (kubelet: "${KUBELET_DECODE_ERROR}")`,
    );
  });

  test('an invalid cacheKeyType says the kubelet uses no credentials', () => {
    const r = decodeResponse(text({ ...good, cacheKeyType: 'ServiceAccount' }), V1);
    expect(!r.ok && r.error).toMatch(
      /^credential provider plugin did not return a valid cacheKeyType: ServiceAccount .*uses no credentials/,
    );
  });

  test('apiVersion is read case-insensitively, as encoding/json does, but the strict decoder then rejects the key', () => {
    expect(reasonOf(text({ APIVERSION: V1, kind: 'CredentialProviderResponse', cacheKeyType: 'Image' }))).toBe(
      'unknownField',
    );
  });

  test('an apiVersion check comes before the kind check', () => {
    expect(reasonOf(text({ apiVersion: 'v1', kind: 'Pod' }))).toBe('apiVersion');
  });

  test('errors never echo a password', () => {
    const r = decodeResponse(
      text({ ...good, cacheKeyType: 'Nope', auth: { 'reg.io': { username: 'u', password: 's3cret' } } }),
      V1,
    );
    expect(!r.ok && r.error).not.toContain('s3cret');
  });
});

describe('encodeRequest writes what the kubelet writes to stdin', () => {
  test('kind, apiVersion, image, newline', () => {
    expect(encodeRequest({ apiVersion: V1, kind: 'CredentialProviderRequest', image: 'docker.io/library/nginx' })).toBe(
      `{"kind":"CredentialProviderRequest","apiVersion":"${V1}","image":"docker.io/library/nginx"}\n`,
    );
  });

  test('v1 adds the token and sorted annotations, HTML-escaped like Go', () => {
    expect(
      encodeRequest({
        apiVersion: V1,
        kind: 'CredentialProviderRequest',
        image: 'reg.io/a',
        serviceAccountToken: 't',
        serviceAccountAnnotations: { 'b.io/x': '<&>', 'a.io/y': '1' },
      }),
    ).toBe(
      `{"kind":"CredentialProviderRequest","apiVersion":"${V1}","image":"reg.io/a","serviceAccountToken":"t","serviceAccountAnnotations":{"a.io/y":"1","b.io/x":"\\u003c\\u0026\\u003e"}}\n`,
    );
  });

  test('older protocol versions have no service-account fields', () => {
    expect(
      encodeRequest({
        apiVersion: 'credentialprovider.kubelet.k8s.io/v1beta1',
        kind: 'CredentialProviderRequest',
        image: 'reg.io/a',
        serviceAccountToken: 't',
      }),
    ).not.toContain('serviceAccountToken');
  });
});
