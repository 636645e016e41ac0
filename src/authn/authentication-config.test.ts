// The AuthenticationConfiguration per kube-apiserver minor: the apiVersion that
// minor registers (version table authenticationConfigApiVersion), the same jwt[].
import { afterAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { behaviourFor, SUPPORTED_MINORS } from '../versions/table.ts';
import { authenticationConfiguration, ensureJwtAuthenticationConfig, type JwtIssuer } from './authentication-config.ts';

const issuer: JwtIssuer = {
  url: 'https://login.example.test/tenant/v2.0',
  caPem: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n',
  audiences: ['api://server', 'other'],
  username: { claim: 'oid', prefix: 'aad:' },
};
const jwt = [
  {
    issuer: {
      url: issuer.url,
      certificateAuthority: issuer.caPem,
      audiences: issuer.audiences,
      audienceMatchPolicy: 'MatchAny',
    },
    claimMappings: { username: { claim: 'oid', prefix: 'aad:' } },
  },
];

describe('per minor', () => {
  test('1.33 reads v1beta1 (v1 is not registered there)', () => {
    expect(authenticationConfiguration(behaviourFor('v1.33.13'), [issuer])).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1beta1',
      kind: 'AuthenticationConfiguration',
      jwt,
    });
  });

  test.each(SUPPORTED_MINORS.filter((m) => m !== 33))('1.%i reads v1', (minor) => {
    expect(authenticationConfiguration(behaviourFor(`1.${minor}`), [issuer])).toEqual({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthenticationConfiguration',
      jwt,
    });
  });
});

describe('the written file', () => {
  const dirs: string[] = [];
  afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  test("another version is another file (another API server), in that version's apiVersion", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-authn-'));
    dirs.push(dir);
    const v133 = await ensureJwtAuthenticationConfig(dir, [issuer], 'v1.33.13');
    expect((parse(await readFile(v133, 'utf8')) as { apiVersion: string }).apiVersion).toBe(
      'apiserver.config.k8s.io/v1beta1',
    );
    const v137 = await ensureJwtAuthenticationConfig(dir, [issuer], 'v1.37.1');
    expect(v137).not.toBe(v133);
    expect((parse(await readFile(v137, 'utf8')) as { apiVersion: string }).apiVersion).toBe(
      'apiserver.config.k8s.io/v1',
    );
    expect(await ensureJwtAuthenticationConfig(dir, [issuer], 'v1.37.1')).toBe(v137);
  });
});
