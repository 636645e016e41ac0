import { describe, test, expect } from '@jest/globals';
import { parseChallenges, parseScope, repositoryScope } from './challenge.ts';

describe('parseChallenges', () => {
  test('reads a distribution bearer challenge with realm, service and scope', () => {
    const h =
      'Bearer realm="http://127.0.0.1:4000/token",service="credprov-registry",scope="repository:credprov/busybox:pull"';
    expect(parseChallenges(h)).toEqual([
      {
        scheme: 'bearer',
        params: {
          realm: 'http://127.0.0.1:4000/token',
          service: 'credprov-registry',
          scope: 'repository:credprov/busybox:pull',
        },
      },
    ]);
  });

  test('reads a basic challenge and lowercases the scheme', () => {
    expect(parseChallenges('Basic realm="credprov"')).toEqual([{ scheme: 'basic', params: { realm: 'credprov' } }]);
  });

  test('splits several challenges in one header and keeps escaped quotes', () => {
    const h = 'Basic realm="a \\"quoted\\" realm", Bearer realm="https://t/token", error="insufficient_scope"';
    expect(parseChallenges(h)).toEqual([
      { scheme: 'basic', params: { realm: 'a "quoted" realm' } },
      { scheme: 'bearer', params: { realm: 'https://t/token', error: 'insufficient_scope' } },
    ]);
  });

  test('returns nothing for a missing header', () => {
    expect(parseChallenges(undefined)).toEqual([]);
  });
});

describe('scopes', () => {
  test('round-trip a repository scope with a nested name', () => {
    expect(parseScope(repositoryScope('team/app/img', ['pull', 'push']))).toEqual({
      type: 'repository',
      name: 'team/app/img',
      actions: ['pull', 'push'],
    });
  });

  test('reject a scope without actions', () => {
    expect(parseScope('repository')).toBeUndefined();
  });
});
