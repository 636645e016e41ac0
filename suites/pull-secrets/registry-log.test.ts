// The registry log reader on lines of a real run (distribution 2.8, logrus
// text; ids and addresses shortened): containerd's refused and authorized
// requests in order, repeats folded, the harness's own pushes left out.
import { describe, expect, test } from '@jest/globals';
import { parseAuthTrail } from '../../src/run/kit.ts';
import { triedBy } from './registry-log.ts';

const line = (level: string, msg: string, uri: string, userAgent: string) =>
  `time="2026-11-25T22:54:05.12Z" level=${level} msg=${msg} go.version=go1.19.8 http.request.host="127.0.0.1:5001" ` +
  `http.request.method=HEAD http.request.uri="${uri}" http.request.useragent=${userAgent} vars.name=secrets/mix-a vars.reference=v1`;
const MANIFEST = '/v2/secrets/mix-a/manifests/v1?ns=secrets-31431b.registry.test%3A5001';
const refused = (user: string) =>
  line('error', `"error authenticating user \\"${user}\\": authentication failure"`, MANIFEST, 'containerd/v2.3.7');
const authorized = line('info', '"authorized request"', MANIFEST, 'containerd/v2.3.7');
const push = line('info', '"authorized request"', '/v2/secrets/mix-a/blobs/uploads/', '');

describe('the registry log reader', () => {
  test("containerd's attempts on one repository, in order, consecutive repeats folded, pushes left out", () => {
    const log = [
      push,
      refused('secret-wrong-1'),
      refused('secret-wrong-1'),
      authorized,
      authorized,
      refused('other'),
    ].join('\n');
    expect(parseAuthTrail(log, 'secrets/mix-a')).toEqual([
      { user: 'secret-wrong-1', ok: false },
      { ok: true },
      { user: 'other', ok: false },
    ]);
    expect(parseAuthTrail(log, 'secrets/mix-b')).toEqual([]);
  });

  test('a refused user names its source, an accepted request the right credential, an unknown user itself; repeats folded', () => {
    const trail = [{ user: 'secret-wrong-1', ok: false }, { ok: true }, { ok: true }, { user: 'stranger', ok: false }];
    expect(triedBy(trail, { 'secret-wrong-1': 'secret mix-wrong' }, 'provider p')).toEqual([
      'secret mix-wrong',
      'provider p',
      'unknown user stranger',
    ]);
  });
});
