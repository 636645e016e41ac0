import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '../core/errors.ts';
import { normalizeImage, parseImageReference } from './image.ts';

interface Vectors {
  image: { ref: string; expect: { repository?: string; tag?: string; digest?: string; error?: string } }[];
}
const vectors = JSON.parse(
  readFileSync(new URL('./testdata/kubelet-v1.37.1-vectors.json', import.meta.url), 'utf8'),
) as Vectors;

describe('normalizeImage agrees with the kubelet v1.37.1 parsers.ParseImageName on every recorded vector', () => {
  test.each(vectors.image.map((v) => [v.ref, v.expect] as const))('%j', (ref, want) => {
    const r = parseImageReference(ref);
    if (want.error) {
      expect('error' in r && want.error.endsWith(`: ${r.error}`)).toBe(true);
      return;
    }
    if ('error' in r) throw new Error(r.error);
    expect(r.repository).toBe(want.repository);
    expect(r.tag ?? (r.implicitLatest ? 'latest' : '')).toBe(want.tag);
    expect(r.digest ?? '').toBe(want.digest);
  });
});

describe('normalizeImage', () => {
  test('adds docker.io and library/ to a familiar name and splits off the tag', () => {
    expect(normalizeImage('nginx:1.25')).toEqual({
      input: 'nginx:1.25',
      repository: 'docker.io/library/nginx',
      registry: 'docker.io',
      path: 'library/nginx',
      tag: '1.25',
      implicitLatest: false,
    });
  });

  test('keeps the port in the registry and drops the digest from the repository', () => {
    const d = `sha256:${'a'.repeat(64)}`;
    expect(normalizeImage(`reg.io:5000/a/b@${d}`)).toMatchObject({
      repository: 'reg.io:5000/a/b',
      registry: 'reg.io:5000',
      path: 'a/b',
      digest: d,
    });
  });

  test('treats localhost and a first component with a dot, colon or capital as a registry', () => {
    expect(normalizeImage('localhost/app').registry).toBe('localhost');
    expect(normalizeImage('Foo/bar').registry).toBe('Foo');
    expect(normalizeImage('user/app').repository).toBe('docker.io/user/app');
  });

  test('marks an image with neither tag nor digest as an implicit latest', () => {
    expect(normalizeImage('reg.io/app').implicitLatest).toBe(true);
  });

  test('rejects an invalid reference with a ConfigError carrying the kubelet reason', () => {
    expect(() => normalizeImage('NGINX')).toThrow(ConfigError);
    expect(() => normalizeImage('reg.io/a//b')).toThrow(
      'invalid image reference "reg.io/a//b": invalid reference format',
    );
  });
});
