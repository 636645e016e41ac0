// Generated exec plugin answers for the differential test against the real
// clients: the ExecCredential's fields in every JSON type, tokens of odd
// characters and sizes, timestamps in and out of RFC 3339, certificates that
// do or do not belong together, and the bytes around the JSON (YAML, a BOM,
// noise), plus the exit code.
import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';

export const EXEC_V1 = 'client.authentication.k8s.io/v1';

export interface GeneratedExecAnswer {
  stdout: string;
  exitCode: number;
}

/** A client certificate and key, and a key of another certificate (made once per run by the caller). */
export interface CertMaterial {
  certPem: string;
  keyPem: string;
  otherKeyPem: string;
}

const odd: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 99999 }),
  fc.constant(1.5),
  fc.constant([]),
  fc.constant({}),
  fc.constant(['x']),
  fc.constant({ a: 1 }),
);

const tokenChar = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom(...'abcXYZ019-._~+/=') },
  { weight: 1, arbitrary: fc.constantFrom(' ', '\t', '\n', '\r', '\u0000', '\u0001', '\u007f', '\u0085', '\u00a0') },
  { weight: 1, arbitrary: fc.constantFrom('é', 'ÿ', '€', '中', '\u2028', '😀', '"', '\\') },
);
const tokenText = fc.oneof(
  { weight: 10, arbitrary: fc.array(tokenChar, { minLength: 1, maxLength: 24 }).map((cs) => cs.join('')) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'x'.repeat(20_000), 'eyJ'.repeat(30_000)) },
);
const token = fc.oneof({ weight: 8, arbitrary: tokenText }, { weight: 1, arbitrary: odd });

const future = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
const timestamp = fc.oneof(
  { weight: 4, arbitrary: fc.constant(future) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      future.replace('Z', '+00:00'),
      future.replace('Z', '.123456789Z'),
      future.replace('Z', ''),
      future.replace('T', ' '),
      future.replace('T', 't'),
      future.replace('Z', 'z'),
      future.replace('Z', '+0100'),
      future.replace('Z', '+01:00:00'),
      '2099-02-30T00:00:00Z',
      '2099-13-01T00:00:00Z',
      '2099-01-01T24:00:00Z',
      '2099-01-01T23:59:60Z',
      '2000-01-01T00:00:00Z',
      '99999-01-01T00:00:00Z',
      '2099-01-01',
      '',
      'never',
      `${future} `,
      '2099-01-01T00:00:00.Z',
      '2099-1-01T00:00:00Z',
    ),
  },
  { weight: 1, arbitrary: odd },
);

function statusArb(cert: CertMaterial): fc.Arbitrary<unknown> {
  const pem = (v: string) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant(v) },
      { weight: 1, arbitrary: fc.constantFrom('x', '', `${v}junk`) },
      { weight: 1, arbitrary: odd },
    );
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc.record(
        {
          token,
          clientCertificateData: pem(cert.certPem),
          clientKeyData: fc.oneof(
            { weight: 5, arbitrary: pem(cert.keyPem) },
            { weight: 1, arbitrary: fc.constant(cert.otherKeyPem) },
          ),
          expirationTimestamp: timestamp,
          Token: fc.constant('t'),
          extra: odd,
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: odd },
  );
}

/** An ExecCredential-ish object: each field usually right, sometimes missing or of another type. */
function credentialArb(cert: CertMaterial): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      apiVersion: fc.oneof(
        { weight: 10, arbitrary: fc.constant(EXEC_V1) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            'client.authentication.k8s.io/v1beta1',
            'client.authentication.k8s.io/v1alpha1',
            'client.authentication.k8s.io/v2',
            'v1',
            '',
            'CLIENT.authentication.k8s.io/v1',
            `${EXEC_V1}/x`,
          ),
        },
        { weight: 1, arbitrary: odd },
      ),
      kind: fc.oneof(
        { weight: 10, arbitrary: fc.constant('ExecCredential') },
        { weight: 2, arbitrary: fc.constantFrom('Credential', 'execcredential', '', 'Status') },
        { weight: 1, arbitrary: odd },
      ),
      spec: fc.oneof(fc.constant({ interactive: false }), fc.constant({}), odd),
      status: statusArb(cert),
      metadata: fc.oneof(fc.constant({}), odd),
    },
    { requiredKeys: [] },
  );
}

/** How the answer is put on stdout. */
const framing = fc.oneof(
  { weight: 12, arbitrary: fc.constant((o: Record<string, unknown>) => `${JSON.stringify(o)}\n`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      (o: Record<string, unknown>) => JSON.stringify(o, null, 2),
      (o: Record<string, unknown>) => toYaml(o),
      (o: Record<string, unknown>) => `\uFEFF${JSON.stringify(o)}`,
      (o: Record<string, unknown>) => `Fetching token...\n${JSON.stringify(o)}`,
      (o: Record<string, unknown>) => `${JSON.stringify(o)}\ndone`,
      (o: Record<string, unknown>) => `${JSON.stringify(o)}${JSON.stringify(o)}`,
      () => '',
      () => 'null',
      () => '[]',
    ),
  },
);

export function execAnswer(cert: CertMaterial): fc.Arbitrary<GeneratedExecAnswer> {
  return fc
    .tuple(
      credentialArb(cert),
      framing,
      fc.oneof({ weight: 20, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(1, 2) }),
    )
    .map(([o, frame, exitCode]) => ({ stdout: frame(o), exitCode }));
}
