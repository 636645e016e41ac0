import { describe, expect, test } from '@jest/globals';
import { credentialsSeen, logfmtFields, registryRequests } from './access-log.ts';

// Lines of a real run of the lab registry (distribution 2.8.2), ids shortened.
const ANONYMOUS = `time="2026-11-26T00:54:19.700Z" level=warning msg="error authorizing context: basic authentication challenge for realm \\"credprov\\": invalid authorization credential" go.version=go1.19.8 http.request.host="127.0.0.1:5000" http.request.id=a1 http.request.method=HEAD http.request.remoteaddr="127.0.0.1:54352" http.request.uri="/v2/secrets/every/manifests/v1?ns=origin.test%3A5000" http.request.useragent=containerd/v2.3.7 vars.name=secrets/every vars.reference=v1`;
const REFUSED = [
  `time="2026-11-26T00:54:19.792Z" level=error msg="error authenticating user \\"secrets\\": authentication failure" go.version=go1.19.8 http.request.host="127.0.0.1:5000" http.request.id=b2 http.request.method=HEAD http.request.remoteaddr="127.0.0.1:54352" http.request.uri="/v2/secrets/every/manifests/v1?ns=origin.test%3A5000" http.request.useragent=containerd/v2.3.7 vars.name=secrets/every vars.reference=v1`,
  `time="2026-11-26T00:54:19.792Z" level=warning msg="error authorizing context: basic authentication challenge for realm \\"credprov\\": authentication failure" go.version=go1.19.8 http.request.host="127.0.0.1:5000" http.request.id=b2 http.request.method=HEAD http.request.remoteaddr="127.0.0.1:54352" http.request.uri="/v2/secrets/every/manifests/v1?ns=origin.test%3A5000" http.request.useragent=containerd/v2.3.7`,
].join('\n');
const NOT_FOUND = [
  `time="2026-11-26T00:54:16.231Z" level=info msg="authorized request" go.version=go1.19.8 http.request.host="127.0.0.1:5000" http.request.id=c3 http.request.method=HEAD http.request.remoteaddr="127.0.0.1:39028" http.request.uri="/v2/secrets/missing/blobs/sha256:bb70" http.request.useragent= vars.name=secrets/missing`,
  `time="2026-11-26T00:54:16.231Z" level=error msg="response completed with error" auth.user.name=credprov-admin err.code="blob unknown" go.version=go1.19.8 http.request.host="127.0.0.1:5000" http.request.id=c3 http.request.method=HEAD http.request.remoteaddr="127.0.0.1:39028" http.request.uri="/v2/secrets/missing/blobs/sha256:bb70" http.request.useragent= http.response.status=404 vars.name=secrets/missing`,
].join('\n');
const OK = `time="2026-11-26T00:54:20.000Z" level=info msg="response completed" go.version=go1.19.8 http.request.host="origin.test:5000" http.request.id=d4 http.request.method=GET http.request.uri="/v2/app/manifests/sha256:aa" http.request.useragent=containerd/v2.3.7 http.response.status=200`;

describe('the registry log as requests (who authenticated, never the secret)', () => {
  test('logfmt: quoted values with escaped quotes, bare values', () => {
    const f = logfmtFields(ANONYMOUS);
    expect(f['msg']).toBe(
      'error authorizing context: basic authentication challenge for realm "credprov": invalid authorization credential',
    );
    expect(f['http.request.id']).toBe('a1');
    expect(f['http.request.host']).toBe('127.0.0.1:5000');
  });

  test('anonymous 401, refused user 401, an accepted 404 naming its user, a 200 naming none, with host, path, ns and agent', () => {
    const rs = registryRequests(
      [NOT_FOUND, ANONYMOUS, REFUSED, OK, 'time="x" level=info msg="listening on 127.0.0.1:5000, tls"'].join('\n'),
    );
    expect(rs.map((r) => [r.host, r.method, r.path, r.ns, r.status, r.credential, r.agent])).toEqual([
      ['127.0.0.1:5000', 'HEAD', '/v2/secrets/missing/blobs/sha256:bb70', undefined, 404, 'credprov-admin', ''],
      [
        '127.0.0.1:5000',
        'HEAD',
        '/v2/secrets/every/manifests/v1',
        'origin.test:5000',
        401,
        'none',
        'containerd/v2.3.7',
      ],
      [
        '127.0.0.1:5000',
        'HEAD',
        '/v2/secrets/every/manifests/v1',
        'origin.test:5000',
        401,
        'secrets',
        'containerd/v2.3.7',
      ],
      [
        'origin.test:5000',
        'GET',
        '/v2/app/manifests/sha256:aa',
        undefined,
        200,
        'unknown (accepted)',
        'containerd/v2.3.7',
      ],
    ]);
    expect(credentialsSeen(rs)).toEqual({
      '127.0.0.1:5000': ['credprov-admin', 'none', 'secrets'],
      'origin.test:5000': ['unknown (accepted)'],
    });
  });

  test('a token-auth registry names the token subject', () => {
    expect(registryRequests(NOT_FOUND, { auth: 'token' })[0]!.credential).toBe('bearer token for credprov-admin');
  });
});
