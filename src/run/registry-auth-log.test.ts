import { expect, test } from '@jest/globals';
import { parseAuthTrail, parsePullAttempts } from './registry-auth-log.ts';

const line = (level: string, msg: string, agent = 'containerd/v2.3.7', repo = 'team/app') =>
  `time="2026-11-25T22:54:05.12Z" level=${level} msg=${msg} http.request.method=HEAD ` +
  `http.request.uri="/v2/${repo}/manifests/v1" http.request.useragent=${agent}`;
const refused = (user: string) => line('error', `"error authenticating user \\"${user}\\": authentication failure"`);
const authorized = line('info', '"authorized request"');
const anonymous = line('info', '"basic authentication challenge for realm: invalid authorization credential"');

test("containerd's trail on one repository: refusals by user, acceptances, repeats folded, pushes left out", () => {
  const log = [line('info', '"authorized request"', ''), refused('a'), refused('a'), authorized, refused('b')].join(
    '\n',
  );
  expect(parseAuthTrail(log, 'team/app')).toEqual([{ user: 'a', ok: false }, { ok: true }, { user: 'b', ok: false }]);
  expect(parseAuthTrail(log, 'team/other')).toEqual([]);
});

test('each anonymous challenge opens a pull attempt, named by the user refused after it', () => {
  const log = [anonymous, refused('sp'), anonymous, anonymous, authorized].join('\n');
  expect(parsePullAttempts(log, 'team/app')).toEqual([
    { user: 'sp', ok: false },
    { user: '', ok: false },
    { user: '', ok: true },
  ]);
});
