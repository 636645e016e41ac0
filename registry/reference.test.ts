import { describe, test, expect } from '@jest/globals';
import { formatRef, parseRef, refReference } from './reference.ts';

describe('parseRef', () => {
  test('takes a first component with a port as the registry host', () => {
    expect(parseRef('registry.test:5000/credprov/busybox:v1')).toEqual({
      host: 'registry.test:5000',
      name: 'credprov/busybox',
      tag: 'v1',
    });
  });
  test('treats a first component without dot, colon or localhost as part of the path', () => {
    expect(parseRef('library/busybox')).toEqual({ name: 'library/busybox' });
    expect(refReference(parseRef('library/busybox'))).toBe('latest');
  });
  test('keeps a digest and formats back to the same text', () => {
    const ref = 'localhost:5000/a/b@sha256:abc';
    expect(parseRef(ref)).toEqual({ host: 'localhost:5000', name: 'a/b', digest: 'sha256:abc' });
    expect(formatRef(parseRef(ref))).toBe(ref);
  });
});
