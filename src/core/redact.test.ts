// The redactor against credentials in every shape a plugin may print them:
// JSON or YAML, strings, numbers, arrays, objects, inside raw output text.
import { describe, expect, test } from '@jest/globals';
import { REDACTED, Redactor } from './redact.ts';

const S1 = 'hunter2-canary-one';
const S2 = 'hunter2-canary-two';

const leaks = (out: unknown, ...secrets: string[]) => secrets.filter((s) => JSON.stringify(out).includes(s));

describe('Redactor.value: structured data', () => {
  test('redacts a secret-named key whatever its value: string, number, array, object', () => {
    const r = new Redactor();
    const out = r.value({
      a: { password: S1 },
      b: { password: [S1, { value: S2 }] },
      c: { token: { value: S2 } },
      d: { password: 12345678 },
    });
    expect(out).toEqual({
      a: { password: REDACTED },
      b: { password: REDACTED },
      c: { token: REDACTED },
      d: { password: REDACTED },
    });
  });

  test('keeps the kubelet response auth map (keys are registries) but redacts the passwords in it', () => {
    const r = new Redactor();
    const out = r.value({ auth: { 'reg.io': { username: 'u', password: S1 } } });
    expect(out).toEqual({ auth: { 'reg.io': { username: 'u', password: REDACTED } } });
  });

  test('a secret seen under a secret key anywhere is redacted everywhere, earlier strings included', () => {
    const r = new Redactor();
    const out = r.value({ first: `stderr: login with ${S1} failed`, later: { password: S1 } });
    expect(leaks(out, S1)).toEqual([]);
  });
});

describe('Redactor.text: raw output', () => {
  test.each([
    [
      'JSON, pretty',
      `{\n  "auth": {\n    "reg.io": {\n      "username": "u",\n      "password": "${S1}"\n    }\n  }\n}`,
    ],
    ['JSON, password an array', `{"auth":{"reg.io":{"username":"u","password":["${S1}","${S2}"]}}}`],
    ['JSON, password an object', `{"auth":{"reg.io":{"username":"u","password":{"v":"${S1}","w":["${S2}"]}}}}`],
    ['JSON, escaped quote in the secret', `{"password":"${S1}\\"${S2}"}`],
    [
      'YAML response',
      `apiVersion: credentialprovider.kubelet.k8s.io/v1\nauth:\n  reg.io:\n    username: u\n    password: ${S1}\n    identitytoken: '${S2}'\n`,
    ],
    [
      'YAML, password a block sequence',
      `auth:\n  reg.io:\n    password:\n      - ${S1}\n      - "${S2}"\n    username: u\n`,
    ],
    ['YAML, password a flow mapping', `auth: {reg.io: {username: u, password: {a: ${S1}, b: ${S2}}}}\n`],
    [
      'exec plugin YAML',
      `apiVersion: client.authentication.k8s.io/v1\nkind: ExecCredential\nstatus:\n  token: ${S1}\n  clientKeyData: "${S2}"\n`,
    ],
    ['noise around JSON', `fetching...\n{"status":{"token":"${S1}"}} done`],
    ['key=value in a log line', `debug: login user=u password=${S1} token=${S2}`],
  ])('%s', (_, text) => {
    const r = new Redactor();
    const out = r.text(text);
    const expected = [S1, S2].filter((s) => text.includes(s));
    expect(leaks(out, ...expected)).toEqual([]);
    expect(out).toContain(REDACTED);
  });

  test('a secret learnt from one output is redacted in another that has no key next to it', () => {
    const r = new Redactor();
    r.text(`password: ${S1}\n`);
    expect(r.text(`retrying with ${S1}`)).toBe(`retrying with ${REDACTED}`);
  });

  test('a bearer token a client quotes in its error is redacted, even one never registered (finding 35)', () => {
    const r = new Redactor();
    expect(
      r.text(
        "IllegalArgumentException: a header value contains a prohibited character '127': Bearer fake-1a2b3c\u007f",
      ),
    ).toBe(`IllegalArgumentException: a header value contains a prohibited character '127': Bearer ${REDACTED}`);
    expect(r.text(`Bearer ${REDACTED}`)).toBe(`Bearer ${REDACTED}`);
  });

  test('leaves what is not secret alone', () => {
    const r = new Redactor();
    const text =
      '{"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderResponse","cacheKeyType":"Registry","auth":{"reg.io":{"username":"u"}}}';
    expect(r.text(text)).toBe(text);
    expect(r.text('tokenAttributes: {serviceAccountTokenAudience: aud}')).toBe(
      'tokenAttributes: {serviceAccountTokenAudience: aud}',
    );
    expect(r.text('cacheType: Token')).toBe('cacheType: Token');
  });
});
