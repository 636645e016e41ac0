import { describe, expect, test } from '@jest/globals';
import { analyseResponse, firstObject } from './analyse.ts';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const good = {
  apiVersion: V1,
  kind: 'CredentialProviderResponse',
  cacheKeyType: 'Registry',
  cacheDuration: '5m',
  auth: { 'reg.io': { username: 'u', password: 'p' } },
};
const text = (o: unknown) => JSON.stringify(o);
const failing = (a: ReturnType<typeof analyseResponse>) =>
  Object.entries(a.verdicts)
    .filter(([, v]) => v.ok === false)
    .map(([k]) => k);

describe('analyseResponse', () => {
  test('accepts a valid response with every aspect ok', () => {
    const a = analyseResponse(text(good), V1);
    expect(a.accepted).toBe(true);
    expect(failing(a)).toEqual([]);
  });

  test('judges nothing but stdout when stdout was cut inside what may be a valid response', () => {
    const cut = 'stdout was cut at 67108864 bytes of 70000000';
    // The first balanced object in the kept part is an auth entry: judged as the response, it would be "apiVersion is missing" and "unknown field".
    const a = analyseResponse(text(good).slice(0, 90), V1, cut);
    expect(a).toMatchObject({ accepted: false, cut: true, kubeletError: cut });
    expect(a.object).toBeUndefined();
    expect(a.verdicts.stdout).toEqual({ ok: false, problem: cut });
    for (const aspect of ['apiVersion', 'kind', 'strict', 'cacheKeyType', 'cacheDuration'] as const) {
      expect(a.verdicts[aspect]).toEqual({ ok: 'unknown', why: `${cut} (see KP-STDOUT-ONLY-JSON)` });
    }
  });

  test.each([
    ['a wrong apiVersion', { ...good, apiVersion: 'credentialprovider.kubelet.k8s.io/v1alpha1' }, ['apiVersion']],
    ['a wrong kind', { ...good, kind: 'CredentialProviderRequest' }, ['kind']],
    ['an unknown field', { ...good, expiresAt: 'x' }, ['strict']],
    ['an invalid cacheKeyType', { ...good, cacheKeyType: 'ServiceAccount' }, ['cacheKeyType']],
    ['a missing cacheKeyType', { ...good, cacheKeyType: undefined }, ['cacheKeyType']],
    ['an unparseable cacheDuration', { ...good, cacheDuration: '5 minutes' }, ['cacheDuration']],
    ['a numeric cacheDuration', { ...good, cacheDuration: 300 }, ['cacheDuration']],
    // One object on stdout has the right form: the kubelet's GVK read failing on a number is apiVersion's fault.
    ['a numeric apiVersion', { ...good, apiVersion: 1 }, ['apiVersion']],
    ['a password that is a number', { ...good, auth: { 'reg.io': { username: 'u', password: 7 } } }, ['strict']],
  ])('blames only the aspect at fault for %s', (_, response, aspects) => {
    const a = analyseResponse(text(response), V1);
    expect(a.accepted).toBe(false);
    expect(a.kubeletError).toBeTruthy();
    expect(failing(a)).toEqual(aspects);
  });

  test('judges every aspect at once when several are wrong', () => {
    const a = analyseResponse(text({ ...good, apiVersion: 'x/v1', kind: 'K', cacheKeyType: 'Nope', extra: 1 }), V1);
    expect(failing(a).sort()).toEqual(['apiVersion', 'cacheKeyType', 'kind', 'strict']);
  });

  test('finds the response among stdout noise but still fails stdout', () => {
    const a = analyseResponse(`refreshing...\n${text(good)}\n`, V1);
    expect(failing(a)).toEqual(['stdout']);
    expect((a.verdicts.stdout as { problem: string }).problem).toContain('refreshing');
    expect(a.object).toEqual(good);
  });

  test('says what stdout is when it is JSON but not an object', () => {
    const a = analyseResponse('[1,2]\n', V1);
    expect(failing(a)).toEqual(['stdout']);
    expect((a.verdicts.stdout as { problem: string }).problem).toBe('stdout is a JSON array, not the response object');
  });

  test('fails stdout for two JSON objects', () => {
    expect(failing(analyseResponse(`${text(good)}\n${text(good)}\n`, V1))).toEqual(['stdout']);
  });

  test('leaves the other aspects unknown when stdout holds no JSON at all', () => {
    const a = analyseResponse('OK\n', V1);
    expect(failing(a)).toEqual(['stdout']);
    expect(a.verdicts.apiVersion.ok).toBe('unknown');
  });

  test('catches a duplicate field', () => {
    const raw = `{"apiVersion":"${V1}","kind":"CredentialProviderResponse","cacheKeyType":"Registry","cacheKeyType":"Image","auth":{}}`;
    expect(failing(analyseResponse(raw, V1))).toEqual(['strict']);
  });
});

describe('firstObject', () => {
  test('skips braces inside strings and unparseable candidates', () => {
    expect(firstObject('x { nope } {"a":"}{","b":{"c":1}} tail')).toEqual({ a: '}{', b: { c: 1 } });
  });
});
