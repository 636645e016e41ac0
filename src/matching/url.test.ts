import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { authKeyMatches, authKeyToKeyringKey, isDefaultRegistryMatch, matchImage, matchPattern } from './url.ts';

interface Vectors {
  match: { pattern: string; target: string; expect: { match: boolean; error?: string } }[];
  keyring: { key: string; image: string; expect: { found: boolean } }[];
}
const vectors = JSON.parse(
  readFileSync(new URL('./testdata/kubelet-v1.37.1-vectors.json', import.meta.url), 'utf8'),
) as Vectors;

describe('matchImage reproduces the reference table (shared/reference §3)', () => {
  test.each([
    ['docker.io', 'docker.io/library/nginx', true],
    ['index.docker.io', 'docker.io/library/nginx', false],
    ['*.docker.io', 'docker.io/library/nginx', false],
    ['127.0.0.1:5000', '127.0.0.1:5000/pause', true],
    ['127.0.0.1', '127.0.0.1:5000/pause', false],
    ['*.reg.io', 'a.reg.io/x', true],
    ['*.reg.io', 'a.b.reg.io/x', false],
    ['reg.io/team', 'reg.io/teamx/app', true],
    ['reg.io/team/', 'reg.io/teamx/app', false],
    ['reg.io/*', 'reg.io/x', false],
    ['*.dkr.ecr.*.amazonaws.com', '123.dkr.ecr.us-east-1.amazonaws.com/x', true],
  ])('%s against %s is %s', (pattern, image, expected) => {
    expect(matchImage(pattern, image).match).toBe(expected);
  });
});

describe('matchPattern agrees with the kubelet v1.37.1 URLsMatchStr on every recorded vector', () => {
  test.each(vectors.match.map((v) => [v.pattern, v.target, v.expect] as const))('%s vs %s', (pattern, target, want) => {
    const r = matchPattern(pattern, target);
    expect(r.match).toBe(want.match);
    if (want.error) expect(r.reason).toContain(want.error);
  });
});

describe('the reason names the first rule that fails, in the kubelet order', () => {
  test('a missing port is reported before anything else, with the fix', () => {
    const r = matchImage('127.0.0.1', '127.0.0.1:5000/pause');
    expect(r.reason).toBe(
      'port differs: pattern has none, image has 5000 (ports must be equal as written; no default port)',
    );
    expect(r.hint).toBe('add the port to the pattern: 127.0.0.1:5000');
    expect(r.detail?.step).toBe('port');
  });

  test('port 443 is not the same as no port', () => {
    expect(matchPattern('reg.io:443', 'reg.io/x').reason).toMatch(/^port differs: pattern has 443, image has none/);
  });

  test('a port mismatch on an unrelated host says the host differs too and offers no port fix', () => {
    const r = matchImage('docker.io', '127.0.0.1:5000/x');
    expect(r.reason).toMatch(/the host differs too$/);
    expect(r.hint).toBeUndefined();
  });

  test('a wildcard spans one label only', () => {
    expect(matchImage('*.reg.io', 'a.b.reg.io/x').reason).toBe(
      'host label count differs: pattern has 3, image has 4 ("*.reg.io" vs "a.b.reg.io"; \'*\' matches within one label only)',
    );
  });

  test('index.docker.io never matches Docker Hub images and the hint says to use docker.io', () => {
    const r = matchImage('index.docker.io', 'nginx');
    expect(r.match).toBe(false);
    expect(r.hint).toContain('docker.io');
  });

  test('the path is a raw string prefix, not a segment match', () => {
    expect(matchImage('reg.io/team', 'reg.io/teamx/app').match).toBe(true);
    expect(matchImage('reg.io/team/', 'reg.io/teamx/app').reason).toBe(
      'path prefix: image path "/teamx/app" does not start with pattern path "/team/" (a plain string prefix; \'*\' is literal in paths)',
    );
  });

  test('a wildcard in the path is literal and the hint says globs work only in host labels', () => {
    const r = matchImage('reg.io/*', 'reg.io/x');
    expect(r.match).toBe(false);
    expect(r.hint).toMatch(/globs work only in host labels/);
  });

  test('the label that fails its glob is named', () => {
    const r = matchPattern('k*.io', 'quay.io');
    expect(r.reason).toBe('host label 1 differs: "k*" does not match "quay"');
    expect(r.detail?.label).toBe(0);
  });

  test('a pattern with a scheme never matches and the hint says to drop it', () => {
    const r = matchImage('https://reg.io', 'reg.io/x');
    expect(r.match).toBe(false);
    expect(r.hint).toMatch(/drop the scheme/);
  });

  test("'?' starts a URL query, so it is no glob in a host", () => {
    const r = matchImage('reg?.io', 'reg1.io/x');
    expect(r.match).toBe(false);
    expect(r.hint).toMatch(/query/);
  });

  test('a character class in a host is an invalid IP-literal to Go 1.26 url.Parse', () => {
    expect(matchPattern('reg[0-9].io', 'reg1.io/x').reason).toBe(
      'pattern is not a valid URL: parse "https://reg[0-9].io": invalid IP-literal',
    );
  });

  test('bracketed IPv6 hosts with a port match; without a port they never do', () => {
    expect(matchPattern('[::1]:5000', '[::1]:5000/x').match).toBe(true);
    expect(matchPattern('[::1]', '[::1]/x').match).toBe(false);
  });

  test('a matching image reports the normalised repository', () => {
    const r = matchImage('docker.io/library', 'nginx:1.25');
    expect(r).toMatchObject({ match: true, reason: 'matched' });
    expect(r.detail?.image?.repository).toBe('docker.io/library/nginx');
  });
});

describe('authKeyMatches follows BasicDockerKeyring.Add and Lookup of kubelet v1.37.1', () => {
  test.each(vectors.keyring.map((v) => [v.key, v.image, v.expect.found] as const))(
    'key %s for %s is %s',
    (key, image, found) => {
      expect(authKeyMatches(key, image).match).toBe(found);
    },
  );

  test('schemes and a leading /v1/ or /v2/ are stripped from keys', () => {
    expect(authKeyToKeyringKey('https://index.docker.io/v1/')).toBe('index.docker.io');
    expect(authKeyToKeyringKey('http://reg.io/v2/team')).toBe('reg.io/team');
    expect(authKeyToKeyringKey('reg.io:5000')).toBe('reg.io:5000');
  });

  test('index.docker.io serves Docker Hub images as the default registry', () => {
    expect(authKeyMatches('index.docker.io', 'docker.io/library/nginx').reason).toMatch(/default registry/);
  });

  test('isDefaultRegistryMatch uses the upstream samples', () => {
    expect(['foo/bar', 'docker.io/foo/bar', 'index.docker.io/foo/bar', 'foo'].every(isDefaultRegistryMatch)).toBe(true);
    expect(
      ['', 'registry.tld/foo/bar', 'registry:5000/foo/bar', 'myhostdocker.io/foo/bar'].some(isDefaultRegistryMatch),
    ).toBe(false);
  });
});
