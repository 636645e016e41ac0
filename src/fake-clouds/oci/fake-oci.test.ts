// Fake OCI's Container Engine cluster_request: a token credprov signs the way
// `oci ce cluster generate-token` does is answered with its signer; each way a
// signed request can be wrong is refused as OCI refuses it (401
// NotAuthenticated, 404 for another cluster). Then the real oci-cli's tokens,
// when its venv is cached.
import { describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ociKeyFingerprint, signingString } from '../../api/oci/request-signature.ts';
import { ensureOciCli } from '../../plugin/vendors/oci-cli.ts';
import { testIf } from '../../testing/prerequisites.ts';
import { useTempDir } from '../../testing/tmp.ts';
import { FakeOci } from './index.ts';

const REGION = 'us-ashburn-1';
const HOST = `containerengine.${REGION}.oraclecloud.com`;
const CLUSTER = 'ocid1.cluster.oc1.iad.aaaacluster';
const TENANCY = 'ocid1.tenancy.oc1..aaaatenancy';
const USER = 'ocid1.user.oc1..aaaauser';
const NOW = Date.UTC(2030, 0, 1, 12);

function apiKey() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyPem = String(publicKey.export({ type: 'spki', format: 'pem' }));
  return { privateKey, publicKeyPem, fingerprint: ociKeyFingerprint(publicKeyPem) };
}
const key = apiKey();

/** A token as generate-token makes it: the signed URL with authorization and date as query, base64url. */
function token(
  o: { key?: KeyObject; keyId?: string; date?: number; cluster?: string; headers?: string[]; host?: string } = {},
) {
  const headers = o.headers ?? ['date', '(request-target)', 'host'];
  const date = new Date(o.date ?? NOW).toUTCString();
  const host = o.host ?? HOST;
  const path = `/cluster_request/${o.cluster ?? CLUSTER}`;
  const signature = sign('sha256', Buffer.from(signingString(headers, { path, host, date })), o.key ?? key.privateKey);
  const keyId = o.keyId ?? `${TENANCY}/${USER}/${key.fingerprint}`;
  const url = new URL(`https://${host}${path}`);
  url.searchParams.set(
    'authorization',
    `Signature version="1",headers="${headers.join(' ')}",keyId="${keyId}",algorithm="rsa-sha256",signature="${signature.toString('base64')}"`,
  );
  url.searchParams.set('date', date);
  return Buffer.from(url.toString()).toString('base64url');
}

const fake = (now = NOW) =>
  new FakeOci({
    region: REGION,
    clusters: [CLUSTER],
    keys: [{ tenancy: TENANCY, user: USER, fingerprint: key.fingerprint, publicKeyPem: key.publicKeyPem }],
    now: () => now,
  });

describe("fake OCI's cluster_request", () => {
  test('answers a correctly signed request with its signer; the record keeps the keyId and skew, never the signature', async () => {
    const f = fake(NOW + 30_000);
    const a = await f.answerToken(token());
    expect(a).toMatchObject({ ok: true, user: USER, tenancy: TENANCY, cluster: CLUSTER });
    expect(f.requests()).toEqual([
      expect.objectContaining({
        method: 'GET',
        host: HOST,
        cluster: CLUSTER,
        keyId: `${TENANCY}/${USER}/${key.fingerprint}`,
        signedHeaders: ['date', '(request-target)', 'host'],
        user: USER,
        dateSkewS: 30,
        status: 200,
      }),
    ]);
    expect(JSON.stringify(f.requests())).not.toContain('signature=');
  });

  test.each([
    ['another key', () => token({ key: apiKey().privateKey }), 401, /does not verify/],
    ['an unknown keyId', () => token({ keyId: `${TENANCY}/${USER}/00:11` }), 401, /No API key/],
    ['a Date 6 minutes old', () => token({ date: NOW - 6 * 60_000 }), 401, /more than 5 minutes/],
    ['a Date 6 minutes ahead', () => token({ date: NOW + 6 * 60_000 }), 401, /more than 5 minutes/],
    ['a signature without host', () => token({ headers: ['date', '(request-target)'] }), 401, /must cover host/],
    ['another cluster', () => token({ cluster: 'ocid1.cluster.oc1.iad.other' }), 404, /not found/],
    [
      'another region',
      () => token({ host: 'containerengine.eu-frankfurt-1.oraclecloud.com' }),
      404,
      /no such endpoint/,
    ],
  ])('refuses %s', async (_, make, status, message) => {
    const a = await fake().answerToken(make());
    expect(a.ok).toBe(false);
    expect(!a.ok && [a.status, a.message]).toEqual([status, expect.stringMatching(message)]);
  });

  test('refuses what is not a token', async () => {
    expect(await fake().answerToken('%%%')).toMatchObject({ ok: false, status: 400 });
  });
});

// The real oci-cli: only when its venv is cached (node scripts/build-field.ts oci-cli installs it).
const oci = await ensureOciCli({ cachedOnly: true }).catch(() => undefined);
const withOci = testIf(
  oci ? { ok: true } : { ok: false, reason: 'oci-cli is not installed (node scripts/build-field.ts oci-cli)' },
);
const tmp = useTempDir('credprov-fake-oci-');

withOci(
  'oci ce cluster generate-token: its token is answered by the fake with the profile’s user, and refused once the key is another',
  async () => {
    const home = tmp();
    await mkdir(join(home, '.oci'), { mode: 0o700 });
    const keyFile = join(home, '.oci', 'key.pem');
    await writeFile(keyFile, `${String(key.privateKey.export({ type: 'pkcs8', format: 'pem' }))}OCI_API_KEY\n`, {
      mode: 0o600,
    });
    await writeFile(
      join(home, '.oci', 'config'),
      `[DEFAULT]\nuser=${USER}\nfingerprint=${key.fingerprint}\nkey_file=${keyFile}\ntenancy=${TENANCY}\nregion=${REGION}\n`,
      { mode: 0o600 },
    );
    const r = await execa(oci!.path, ['ce', 'cluster', 'generate-token', '--cluster-id', CLUSTER, '--region', REGION], {
      env: { PATH: '/usr/bin:/bin', HOME: home },
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
    expect(r.exitCode).toBe(0);
    expect(String(r.stderr)).toBe('');
    const t = (JSON.parse(String(r.stdout)) as { status: { token: string } }).status.token;
    const live = new FakeOci({
      region: REGION,
      clusters: [CLUSTER],
      keys: [{ tenancy: TENANCY, user: USER, fingerprint: key.fingerprint, publicKeyPem: key.publicKeyPem }],
    });
    expect(await live.answerToken(t)).toMatchObject({ ok: true, user: USER });
    const other = apiKey();
    const stranger = new FakeOci({
      region: REGION,
      clusters: [CLUSTER],
      keys: [{ tenancy: TENANCY, user: USER, fingerprint: key.fingerprint, publicKeyPem: other.publicKeyPem }],
    });
    expect(await stranger.answerToken(t)).toMatchObject({ ok: false, status: 401, code: 'NotAuthenticated' });
  },
  90_000,
);
