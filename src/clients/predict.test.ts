// From a plugin's answer to each client's predicted verdict (decoding.ts), without running anything.
import { describe, expect, test } from '@jest/globals';
import { issueClientCertificate } from '../core/client-cert.ts';
import { answerFindings, answerTraits, predictClient } from './decoding.ts';
import { parseJiffTimestamp } from './kube-rs/jiff-timestamp.ts';

const V1 = 'client.authentication.k8s.io/v1';
const later = new Date(Date.now() + 3_600_000).toISOString();
const run = (
  stdout: string,
  more: Partial<{ exitCode: number; timedOut: boolean; strays: Array<{ holds: string[] }> }> = {},
) => ({ exitCode: 0, timedOut: false, stdout, ...more });
const answer = (o: Record<string, unknown>) => run(JSON.stringify(o));

describe('answerTraits', () => {
  test('a good answer has none that troubles a client', () => {
    expect(
      answerTraits(
        answer({ apiVersion: V1, kind: 'ExecCredential', status: { token: 't', expirationTimestamp: later } }),
        V1,
      ),
    ).toEqual([]);
  });

  test('each defect is named', () => {
    expect(answerTraits(answer({ apiVersion: V1, status: { token: 't' } }), V1)).toEqual(['kind-missing']);
    expect(answerTraits(answer({ kind: 'ExecCredential', status: { token: 't' } }), V1)).toEqual([
      'apiVersion-missing',
    ]);
    expect(
      answerTraits(
        answer({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: 't' } }),
        V1,
      ),
    ).toEqual(['apiVersion-other']);
    expect(answerTraits(answer({ apiVersion: V1, kind: 'ExecCredential' }), V1)).toEqual(['status-missing']);
    expect(answerTraits(answer({ apiVersion: V1, kind: 'ExecCredential', status: {} }), V1)).toEqual(['no-credential']);
    expect(answerTraits(run(`apiVersion: ${V1}\nkind: ExecCredential\nstatus:\n  token: t\n`), V1)).toEqual(['yaml']);
    expect(answerTraits(run(`banner\n${JSON.stringify({ apiVersion: V1 })}`), V1)).toEqual(['not-json']);
    expect(answerTraits(run('', { exitCode: 1 }), V1)).toEqual(['exit-nonzero']);
    expect(answerTraits(run('', { timedOut: true }), V1)).toEqual(['no-answer']);
    expect(answerTraits(run('{}', { strays: [{ holds: ['stdout'] }] }), V1)).toEqual(['no-answer']);
  });

  test('certificates: alone, with a token, without their key, with another key', () => {
    const a = issueClientCertificate();
    const b = issueClientCertificate();
    const base = { apiVersion: V1, kind: 'ExecCredential' };
    expect(
      answerTraits(answer({ ...base, status: { clientCertificateData: a.certPem, clientKeyData: a.keyPem } }), V1),
    ).toEqual(['cert-only']);
    expect(
      answerTraits(
        answer({ ...base, status: { token: 't', clientCertificateData: a.certPem, clientKeyData: a.keyPem } }),
        V1,
      ),
    ).toEqual(['token-and-cert']);
    expect(answerTraits(answer({ ...base, status: { clientCertificateData: a.certPem } }), V1)).toEqual([
      'cert-without-key',
    ]);
    expect(
      answerTraits(answer({ ...base, status: { clientCertificateData: a.certPem, clientKeyData: b.keyPem } }), V1),
    ).toEqual(['cert-key-mismatch', 'cert-only']);
  });
});

describe('predictClient', () => {
  test('an answer without kind: only the Python client objects, and the reason names the row', () => {
    expect(predictClient('client-go', ['kind-missing']).verdict).toBe('accepts');
    expect(predictClient('client-node', ['kind-missing']).verdict).toBe('accepts');
    const p = predictClient('python', ['kind-missing']);
    expect([p.verdict, p.row?.trait]).toEqual(['sends-no-credential', 'kind-missing']);
    expect(p.because).toContain("missing key 'kind'");
  });

  test("the first trait in the client's own check order decides", () => {
    // The Python client looks at apiVersion before kind; client-go never minds a missing kind.
    expect(predictClient('python', ['apiVersion-missing', 'kind-missing']).row?.trait).toBe('apiVersion-missing');
    expect(predictClient('kubectl', ['apiVersion-missing', 'kind-missing']).row?.trait).toBe('apiVersion-missing');
    expect(predictClient('client-node', ['apiVersion-missing', 'kind-missing']).verdict).toBe('accepts');
  });

  test('an accepted answer says what the client notes about it', () => {
    expect(predictClient('python', ['token-and-cert']).because).toContain('sends the token only');
  });
});

describe('answerTraits: the token and the bytes around the answer', () => {
  const base = { apiVersion: V1, kind: 'ExecCredential' };
  const cert = issueClientCertificate();
  const traitsOf = (status: Record<string, unknown>, prefix = '') =>
    answerTraits(run(prefix + JSON.stringify({ ...base, status })), V1);

  test('a byte-order mark is named, and the answer behind it still read', () => {
    expect(traitsOf({ token: 't' }, '\uFEFF')).toEqual(['bom']);
  });

  test('a token of another type: a number or true is a token to some clients; null, false and 0 to Python only', () => {
    expect(traitsOf({ token: 12345 })).toEqual(['token-not-string']);
    expect(traitsOf({ token: true })).toEqual(['token-not-string']);
    expect(traitsOf({ token: null })).toEqual(['token-falsy']);
    // false and 0 are also a JSON type client-go's string field refuses.
    for (const token of [false, 0]) expect(traitsOf({ token })).toEqual(['token-not-string', 'token-falsy']);
    expect(traitsOf({ token: '', clientCertificateData: cert.certPem, clientKeyData: cert.keyPem })).toEqual([
      'cert-only',
      'token-empty-with-cert',
    ]);
  });

  test("a token's characters, by the row their clients' outcomes make", () => {
    expect(traitsOf({ token: 'tok\n' })).toEqual(['token-ends-in-line-break']);
    expect(traitsOf({ token: 'to\nk' })).toEqual(['token-line-break']);
    expect(traitsOf({ token: 'to\u0001k' })).toEqual(['token-control-char']);
    expect(traitsOf({ token: 'tok\u20ac' })).toEqual(['token-not-latin1']);
    expect(traitsOf({ token: 'tok\u00e9' })).toEqual(['token-non-ascii']);
    expect(traitsOf({ token: ' tok' })).toEqual(['token-leading-space']);
  });

  test('a token over 16 KiB is fine; over 1 MiB, kube-apiserver refuses the request', () => {
    expect(traitsOf({ token: 'x'.repeat(64 * 1024) })).toEqual(['token-over-16kib']);
    expect(traitsOf({ token: 'x'.repeat((1 << 20) + 1) })).toEqual(['token-over-1mib']);
    expect(predictClient('client-go', ['token-over-16kib']).verdict).toBe('accepts');
  });

  test('predictions follow each client: a trailing newline troubles Go and Python, not client-node', () => {
    const traits = traitsOf({ token: 'tok\n' });
    expect(predictClient('kubectl', traits).verdict).toBe('refuses');
    expect(predictClient('client-node', traits).verdict).toBe('accepts');
    expect(predictClient('python', traits).row?.trait).toBe('token-ends-in-line-break');
  });
});

describe('predictions quote the answer, never a row example', () => {
  test("a timestamp without a zone is named by the plugin's own value and its defect", () => {
    const traits = answerFindings(
      answer({
        apiVersion: V1,
        kind: 'ExecCredential',
        status: { token: 't', expirationTimestamp: '2026-11-29T01:28:26' },
      }),
      V1,
    );
    for (const client of ['kubectl', 'client-go'] as const) {
      const p = predictClient(client, traits);
      expect(p.verdict).toBe('refuses');
      expect(p.because).toContain(
        'expirationTimestamp is "2026-11-29T01:28:26" (no time zone (Z or ±hh:mm): not RFC 3339)',
      );
      expect(p.because).not.toContain('2030-01-02');
    }
  });

  test('a wrong kind, a removed version and a control character are quoted as given', () => {
    const p = (status: Record<string, unknown>, top: Record<string, unknown> = {}) =>
      predictClient('client-go', answerFindings(answer({ apiVersion: V1, kind: 'ExecCredential', status, ...top }), V1))
        .because;
    expect(p({ token: 't' }, { kind: 'Token' })).toContain('kind is "Token"');
    expect(p({ token: 't' }, { apiVersion: 'client.authentication.k8s.io/v2' })).toContain(
      'apiVersion is "client.authentication.k8s.io/v2", a version no client knows',
    );
    expect(p({ token: 'ab\u0002cd' })).toContain('U+0002 at offset 2 of 5');
    expect(p({ token: 'ab\u0002cd' })).not.toContain('DEL');
  });
});

// Each case here is a disagreement the differential test (src/differential/exec.test.ts) found between
// credprov's prediction and the real client, on a generated answer; the readers (findings.ts) and the rows
// (decoding.ts) now give the real client's verdict.
describe('found by the differential test: each client reads the answer its own way', () => {
  const pair = issueClientCertificate();
  const other = issueClientCertificate();
  const good = { apiVersion: V1, kind: 'ExecCredential' };
  const verdicts = (stdout: string) => {
    const f = answerFindings(run(stdout), V1);
    return Object.fromEntries(
      (['client-go', 'client-node', 'python'] as const).map((c) => [c, predictClient(c, f).verdict]),
    );
  };
  const answerOf = (o: Record<string, unknown>) => JSON.stringify(o);
  test.each([
    [
      'a token beside a certificate without its key: client-node and Python send the token, client-go refuses the pair',
      answerOf({ ...good, status: { token: 'tok', clientCertificateData: pair.certPem } }),
      { 'client-go': 'refuses', 'client-node': 'accepts', python: 'accepts' },
    ],
    [
      'the answer null: client-node has no credential and says nothing',
      'null',
      { 'client-go': 'refuses', 'client-node': 'sends-no-credential', python: 'sends-no-credential' },
    ],
    [
      'spec a number: a field of another type fails client-go’s typed decode only',
      answerOf({ ...good, spec: 502, status: { token: 'tok' } }),
      { 'client-go': 'refuses', 'client-node': 'accepts', python: 'accepts' },
    ],
    [
      'expirationTimestamp an object: client-go refuses; Python has set the token before it fails to parse it',
      answerOf({ ...good, status: { token: 'tok', expirationTimestamp: {} } }),
      { 'client-go': 'refuses', 'client-node': 'accepts', python: 'accepts' },
    ],
    [
      'status 1.5 (or false): client-node and Python find nothing in it',
      answerOf({ ...good, status: 1.5 }),
      { 'client-go': 'refuses', 'client-node': 'sends-no-credential', python: 'sends-no-credential' },
    ],
    [
      'a token of one space beside a valid certificate pair: the certificate authenticates, except in Python (the token wins)',
      answerOf({ ...good, status: { token: ' ', clientCertificateData: pair.certPem, clientKeyData: pair.keyPem } }),
      { 'client-go': 'accepts', 'client-node': 'accepts', python: 'sends-no-credential' },
    ],
    [
      'kind "": Python checks only that kind is there',
      answerOf({ ...good, kind: '', status: { token: 'tok' } }),
      { 'client-go': 'accepts', 'client-node': 'accepts', python: 'accepts' },
    ],
    [
      'token null beside a certificate without its key: Python sends "Bearer None"',
      answerOf({ ...good, status: { token: null, clientCertificateData: pair.certPem } }),
      { 'client-go': 'refuses', 'client-node': 'sends-no-credential', python: 'accepts' },
    ],
    [
      'clientKeyData "" beside a certificate: Python loads the certificate without a key, and TLS fails',
      answerOf({ ...good, status: { clientCertificateData: pair.certPem, clientKeyData: '' } }),
      { 'client-go': 'refuses', 'client-node': 'sends-no-credential', python: 'refuses' },
    ],
    [
      'clientCertificateData 1.5 beside a token: client-node hands it to TLS, which wants a string',
      answerOf({ ...good, status: { token: 'tok', clientCertificateData: 1.5, clientKeyData: pair.keyPem } }),
      { 'client-go': 'refuses', 'client-node': 'refuses', python: 'accepts' },
    ],
    [
      'clientKeyData [] beside a token and a certificate: an empty list is no key to client-node, and Python sends the token',
      answerOf({ ...good, status: { token: 'tok', clientCertificateData: pair.certPem, clientKeyData: [] } }),
      { 'client-go': 'refuses', 'client-node': 'accepts', python: 'accepts' },
    ],
    [
      'clientKeyData "x" alone: client-node hands it to TLS, which cannot read it',
      answerOf({ ...good, status: { clientKeyData: 'x' } }),
      { 'client-go': 'refuses', 'client-node': 'refuses', python: 'sends-no-credential' },
    ],
    [
      'a token of one tab beside a certificate without its key: fetch trims it away, and the API server reads no token',
      answerOf({ ...good, status: { token: '\t', clientCertificateData: pair.certPem } }),
      { 'client-go': 'refuses', 'client-node': 'sends-no-credential', python: 'sends-no-credential' },
    ],
    [
      'clientCertificateData an object beside a key, no token: Python fails to write it to a file, and logs it',
      answerOf({ ...good, status: { clientCertificateData: { a: 1 }, clientKeyData: other.keyPem } }),
      { 'client-go': 'refuses', 'client-node': 'refuses', python: 'sends-no-credential' },
    ],
  ] as const)('%s', (_, stdout, expected) => {
    expect(verdicts(stdout)).toEqual(expected);
  });
});

describe('typed field clients: what each field takes by its JSON kind (fieldKinds)', () => {
  const V1 = 'client.authentication.k8s.io/v1';
  const good = { apiVersion: V1, kind: 'ExecCredential' };
  const typed = (status: unknown, extra: Record<string, unknown> = {}) => {
    const f = answerFindings(run(JSON.stringify({ ...good, ...extra, status })), V1);
    return Object.fromEntries((['kube-rs', 'fabric8'] as const).map((c) => [c, predictClient(c, f).verdict]));
  };

  test.each([
    ['a number is its text', { token: 0 }, { 'kube-rs': 'accepts', fabric8: 'accepts' }],
    ['a boolean is its text', { token: false }, { 'kube-rs': 'accepts', fabric8: 'accepts' }],
    ['null is no token', { token: null }, { 'kube-rs': 'sends-no-credential', fabric8: 'sends-no-credential' }],
    ['an object fails the decode', { token: {} }, { 'kube-rs': 'refuses', fabric8: 'sends-no-credential' }],
    ['a list fails the decode', { token: ['x'] }, { 'kube-rs': 'refuses', fabric8: 'sends-no-credential' }],
    [
      'an object timestamp: kube-rs fails the decode, fabric8 never reads it',
      { token: 't', expirationTimestamp: {} },
      { 'kube-rs': 'refuses', fabric8: 'accepts' },
    ],
    [
      'a number timestamp is its text, which jiff refuses',
      { token: 't', expirationTimestamp: 5 },
      { 'kube-rs': 'refuses', fabric8: 'accepts' },
    ],
  ] as const)('status.token and friends: %s', (_, status, expected) => {
    expect(typed(status)).toEqual(expected);
  });

  test('a scalar where status goes fails both decodes', () => {
    expect(typed('x')).toEqual({ 'kube-rs': 'refuses', fabric8: 'sends-no-credential' });
  });
});

describe('kube-rs expirationTimestamp: jiff, not RFC 3339', () => {
  test.each([
    ['2099-01-01 00:00:00Z', true],
    ['2099-01-01t00:00:00z', true],
    ['2099-01-01T00:00:00+0100', true],
    ['2099-01-01T00:00Z', true],
    ['2099-01-01T23:59:60Z', true],
    ['2099-01-01T00:00:00', false],
    ['2099-02-30T00:00:00Z', false],
    ['2099-01-01T00:00:00.1234567891Z', false],
    ['2099-01-01T00:00:00Z ', false],
  ])('%s → %s', (ts, ok) => {
    expect(parseJiffTimestamp(ts).ok).toBe(ok);
  });
  test('the instant: offset applied, a leap second read as :59', () => {
    expect(parseJiffTimestamp('2099-01-01T01:00:00+01:00')).toEqual({ ok: true, ms: Date.UTC(2099, 0, 1) });
    expect(parseJiffTimestamp('2099-01-01T23:59:60Z')).toEqual({ ok: true, ms: Date.UTC(2099, 0, 1, 23, 59, 59) });
  });
});
