import { describe, expect, test } from '@jest/globals';
import { containerdHosts, predictHostPull, type HostAnswer, type HostPullCase } from './containerd-hosts.ts';

const ORIGIN = 'origin.test:5000';
const MIRROR = '127.0.0.9:6000';
const origin: HostAnswer = { kind: 'registry', auth: 'basic', accepts: ['alice'], hasImage: true };
const withMirror = (mirror: HostAnswer, o: Partial<HostPullCase> = {}): HostPullCase => ({
  imageHost: ORIGIN,
  by: 'tag',
  hosts: containerdHosts(ORIGIN, { server: `https://${ORIGIN}`, hosts: [{ url: `https://${MIRROR}` }] }),
  answers: { [ORIGIN]: origin, [MIRROR]: mirror },
  auth: { username: 'alice' },
  ...o,
});

describe('containerdHosts (hosts.go parseHostsFile / ConfigureHosts)', () => {
  test('no hosts.toml: the image host itself, https, /v2, every capability', () => {
    expect(containerdHosts('reg.test:5000')).toEqual([
      {
        host: 'reg.test:5000',
        scheme: 'https',
        path: '/v2',
        capabilities: ['pull', 'resolve', 'push', 'referrers'],
        from: 'image host',
      },
    ]);
    expect(containerdHosts('docker.io')[0]!.host).toBe('registry-1.docker.io');
  });

  test('[host] entries in file order, then server last', () => {
    const hosts = containerdHosts(ORIGIN, {
      server: 'https://elsewhere.test',
      hosts: [
        { url: 'https://m1.test', capabilities: ['pull'] },
        { url: 'http://m2.test:81/mirror', overridePath: true },
      ],
    });
    expect(hosts.map((h) => [h.host, h.scheme, h.path, h.from])).toEqual([
      ['m1.test', 'https', '/v2', 'host entry'],
      ['m2.test:81', 'http', '/mirror', 'host entry'],
      ['elsewhere.test', 'https', '/v2', 'server'],
    ]);
    expect(hosts[0]!.capabilities).toEqual(['pull']);
  });

  test('no server: the image host ends the list; a path without /v2 gets it unless override_path', () => {
    const hosts = containerdHosts(ORIGIN, { hosts: [{ url: 'm.test/cache' }] });
    expect(hosts.map((h) => `${h.scheme}://${h.host}${h.path}`)).toEqual([
      'https://m.test/cache/v2',
      `https://${ORIGIN}/v2`,
    ]);
  });
});

describe('predictHostPull', () => {
  test('a mirror that refuses (401) sees the origin credential, then containerd falls back to the origin', () => {
    const p = predictHostPull(withMirror({ kind: 'registry', auth: 'basic', accepts: ['mallory'], hasImage: true }));
    expect(p.pull).toBe('success');
    expect(p.resolvedBy).toBe(ORIGIN);
    expect(p.fetchedFrom).toBe(ORIGIN);
    expect(p.seen).toEqual({ [MIRROR]: ['alice', 'none'], [ORIGIN]: ['alice', 'none'] });
    expect(p.crossings).toEqual([{ username: 'alice', issuedFor: ORIGIN, sentTo: MIRROR }]);
    // resolve and fetch both try the mirror first
    expect(p.visits.map((v) => `${v.phase} ${v.host} ${v.outcome}`)).toEqual([
      `resolve ${MIRROR} unauthorized`,
      `resolve ${ORIGIN} ok`,
      `fetch ${MIRROR} unauthorized`,
      `fetch ${ORIGIN} ok`,
    ]);
    expect(p.visits[0]!.namespaceQuery).toBe(true);
    expect(p.visits[1]!.namespaceQuery).toBe(false);
  });

  test('a mirror that accepts the credential but lacks the image (404): crossed, fallback, success', () => {
    const p = predictHostPull(withMirror({ kind: 'registry', auth: 'basic', accepts: ['alice'], hasImage: false }));
    expect(p.pull).toBe('success');
    expect(p.visits[0]!.outcome).toBe('not found');
    expect(p.crossings.map((x) => x.sentTo)).toEqual([MIRROR]);
  });

  test('a mirror that is down: no credential reaches it, the origin serves', () => {
    const p = predictHostPull(withMirror({ kind: 'down' }));
    expect(p.pull).toBe('success');
    expect(p.seen[MIRROR]).toEqual([]);
    expect(p.crossings).toEqual([]);
  });

  test('an open mirror that has the image serves it and never sees a credential; the origin is never contacted', () => {
    const p = predictHostPull(withMirror({ kind: 'registry', auth: 'none', accepts: [], hasImage: true }));
    expect(p.pull).toBe('success');
    expect(p.fetchedFrom).toBe(MIRROR);
    expect(p.seen).toEqual({ [MIRROR]: ['none'] });
    expect(p.crossings).toEqual([]);
  });

  test('a mirror that accepts and has the image serves it with the origin credential: a crossing', () => {
    const p = predictHostPull(withMirror({ kind: 'registry', auth: 'basic', accepts: ['alice'], hasImage: true }));
    expect(p.fetchedFrom).toBe(MIRROR);
    expect(p.seen[ORIGIN]).toBeUndefined();
    expect(p.crossings).toHaveLength(1);
  });

  test('ServerAddress naming the origin withholds the credential from the mirror (the kubelet never sets it)', () => {
    const p = predictHostPull(
      withMirror(
        { kind: 'registry', auth: 'basic', accepts: ['alice'], hasImage: true },
        { auth: { username: 'alice', serverAddress: `https://${ORIGIN}` } },
      ),
    );
    expect(p.visits[0]!.outcome).toBe('no basic auth credentials');
    expect(p.crossings).toEqual([]);
    expect(p.fetchedFrom).toBe(ORIGIN);
  });

  test('anonymous pull: a Basic mirror and origin both refuse, the pull fails', () => {
    const p = predictHostPull(
      withMirror({ kind: 'registry', auth: 'basic', accepts: ['alice'], hasImage: true }, { auth: undefined }),
    );
    expect(p.pull).toBe('failure');
    expect(p.visits.map((v) => v.outcome)).toEqual(['no basic auth credentials', 'no basic auth credentials']);
  });

  test('a pull-only mirror: skipped by a tag resolve, used first to fetch; used to resolve a digest', () => {
    const hosts = containerdHosts(ORIGIN, {
      server: `https://${ORIGIN}`,
      hosts: [{ url: `https://${MIRROR}`, capabilities: ['pull'] }],
    });
    const mirror: HostAnswer = { kind: 'registry', auth: 'basic', accepts: ['alice'], hasImage: true };
    const byTag = predictHostPull(withMirror(mirror, { hosts }));
    expect(byTag.resolvedBy).toBe(ORIGIN);
    expect(byTag.fetchedFrom).toBe(MIRROR);
    const byDigest = predictHostPull(withMirror(mirror, { hosts, by: 'digest' }));
    expect(byDigest.resolvedBy).toBe(MIRROR);
    expect(byDigest.seen[ORIGIN]).toBeUndefined();
  });

  test('server = elsewhere: the credential goes there, a crossing when it stands for another registry', () => {
    const hosts = containerdHosts(ORIGIN, { server: `https://${MIRROR}` });
    const p = predictHostPull(
      withMirror({ kind: 'registry', auth: 'basic', accepts: ['alice'], hasImage: true }, { hosts, issuedFor: ORIGIN }),
    );
    expect(p.visits.map((v) => v.host)).toEqual([MIRROR, MIRROR]);
    expect(p.crossings.map((x) => x.sentTo)).toEqual([MIRROR]);
    expect(p.because).toContain(`alice's credential (for ${ORIGIN}) reaches ${MIRROR}`);
  });

  test('no host can resolve a tag (every entry pull-only, no server fallback needed): failure without a visit', () => {
    const p = predictHostPull({
      imageHost: ORIGIN,
      by: 'tag',
      hosts: [{ host: MIRROR, scheme: 'https', path: '/v2', capabilities: ['pull'], from: 'host entry' }],
      answers: {},
    });
    expect(p.pull).toBe('failure');
    expect(p.visits).toEqual([]);
    expect(p.because).toContain('no host');
  });
});
