// The fake Entra ID tenant of an AKS cluster's users (Azure kubelogin's
// non-browser modes): a service principal's secret, ROPC after user realm
// discovery, workload identity's federated assertion with audience
// api://AzureADTokenExchange, unknown resources, and the v2.0 access tokens it
// mints, which verify against the JWKS its OpenID configuration names. In
// process through the kit, then over a real listener under its host name (a
// temporary hosts file) with managed identity.
import { afterEach, describe, expect, test } from '@jest/globals';
import { createLocalJWKSet, decodeJwt, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JWK } from 'jose';
import { request as httpsRequest } from 'node:https';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HostsFile } from '../../core/hosts.ts';
import { useTempDir } from '../../testing/tmp.ts';
import { cloudRequest, FakeCloud, type CloudRecord } from '../kit/index.ts';
import { AAD_HOST, FakeAzureAd, FakeEntraId, type EntraIdSeen } from './index.ts';
import { EntraTokenSigner, entraIssuer } from './entra-tokens.ts';

const T = '11111111-2222-3333-4444-555555555555';
const API = '6dae42f8-4368-4678-94ff-3960e28e3630';
const WI_AUDIENCE = 'api://AzureADTokenExchange';
const ISSUER = 'https://kubernetes.default.svc';
const SA = 'system:serviceaccount:team:deployer';
const { privateKey, publicKey } = await generateKeyPair('RS256');
const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };

const saToken = (o: { sub?: string; aud?: string } = {}) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setSubject(o.sub ?? SA)
    .setAudience(o.aud ?? WI_AUDIENCE)
    .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
    .sign(privateKey);

type Seen = CloudRecord & EntraIdSeen;

async function tenant() {
  const signer = await EntraTokenSigner.create();
  const aad = new FakeAzureAd([{ tenantId: T, clientId: 'wi-app', subject: SA, audience: WI_AUDIENCE }], {
    tenantId: T,
    apps: [
      { clientId: 'spn-app', objectId: 'spn-oid', secrets: ['s3cret'] },
      { clientId: 'pub-app', objectId: 'pub-oid', publicClient: true },
      { clientId: 'wi-app', objectId: 'wi-oid' },
    ],
    users: [{ username: 'alice@contoso.test', password: 'pw', objectId: 'alice-oid' }],
    resources: [API],
    signer,
  });
  aad.trustOidc({ issuer: ISSUER, jwks: { keys: [jwk] } });
  const cloud = new FakeCloud<Seen>({ name: 'Entra ID' });
  const endpoint = aad.endpoint<Seen>(async (resource, _identity, g) => {
    const t = await signer.mint(
      { tenant: T, audience: resource, objectId: g!.objectId, clientId: g!.clientId, username: g!.username },
      600,
    );
    return { token: t.token, expiresIn: 600 };
  });
  const call = async (method: string, path: string, form?: Record<string, string>) => {
    const body = form ? new URLSearchParams(form).toString() : '';
    const { reply, record } = await cloud.exchange(
      endpoint,
      cloudRequest({ method, target: path, headers: { host: AAD_HOST }, body }),
    );
    return { status: reply.status, body: JSON.parse(String(reply.body)) as Record<string, unknown>, record };
  };
  const token = (form: Record<string, string>) =>
    call('POST', `/${T}/oauth2/v2.0/token`, { scope: `${API}/.default`, ...form });
  return { call, token, signer };
}

const codeOf = (r: { status: number; body: Record<string, unknown> }) =>
  `${r.status} ${(r.body.error_codes as number[] | undefined)?.[0] ?? r.body.error ?? ''}`;

describe('fake Entra ID: the grants Azure kubelogin sends', () => {
  test('a service principal with its secret gets a v2.0 token for the API: iss the tenant, aud the API, oid and azp its own', async () => {
    const { token, signer } = await tenant();
    const r = await token({ grant_type: 'client_credentials', client_id: 'spn-app', client_secret: 's3cret' });
    expect(r.status).toBe(200);
    expect(r.record).toMatchObject({
      grantType: 'client_credentials',
      clientAuth: 'secret',
      identity: 'spn-app',
      resource: API,
    });
    const { payload } = await jwtVerify(String(r.body.access_token), createLocalJWKSet(signer.jwks), {
      issuer: entraIssuer(T),
      audience: API,
    });
    expect(payload).toMatchObject({ tid: T, oid: 'spn-oid', sub: 'spn-oid', azp: 'spn-app', ver: '2.0' });
    expect(r.body).toMatchObject({ token_type: 'Bearer', expires_in: 600, ext_expires_in: 600 });
    expect(r.body).not.toHaveProperty('refresh_token');
  });

  test('refuses a wrong secret (7000215), no secret (7000218), an unknown app (700016), an unknown resource (500011), a scope without /.default (70011)', async () => {
    const { token, call } = await tenant();
    expect(codeOf(await token({ grant_type: 'client_credentials', client_id: 'spn-app', client_secret: 'x' }))).toBe(
      '401 7000215',
    );
    expect(codeOf(await token({ grant_type: 'client_credentials', client_id: 'spn-app' }))).toBe('401 7000218');
    expect(codeOf(await token({ grant_type: 'client_credentials', client_id: 'nope', client_secret: 's3cret' }))).toBe(
      '400 700016',
    );
    const other = await call('POST', `/${T}/oauth2/v2.0/token`, {
      grant_type: 'client_credentials',
      client_id: 'spn-app',
      client_secret: 's3cret',
      scope: 'https://management.azure.com/.default',
    });
    expect(codeOf(other)).toBe('400 500011');
    const bare = await call('POST', `/${T}/oauth2/v2.0/token`, {
      grant_type: 'client_credentials',
      client_id: 'spn-app',
      client_secret: 's3cret',
      scope: API,
    });
    expect(codeOf(bare)).toBe('400 70011');
  });

  test('ROPC: user realm says Managed; the password grant answers an id_token and client_info for the user; a wrong password is 50126', async () => {
    const { call, token, signer } = await tenant();
    const realm = await call('GET', '/common/UserRealm/alice%40contoso.test?api-version=1.0');
    expect(realm.body).toMatchObject({
      account_type: 'Managed',
      domain_name: 'contoso.test',
      cloud_instance_name: 'microsoftonline.com',
    });
    const form = {
      grant_type: 'password',
      client_id: 'pub-app',
      username: 'alice@contoso.test',
      password: 'pw',
      client_info: '1',
    };
    const r = await token(form);
    expect(r.status).toBe(200);
    expect(r.record).toMatchObject({
      grantType: 'password',
      clientAuth: 'none',
      username: 'alice@contoso.test',
      identity: 'alice@contoso.test',
    });
    expect(decodeJwt(String(r.body.access_token))).toMatchObject({
      oid: 'alice-oid',
      azp: 'pub-app',
      preferred_username: 'alice@contoso.test',
    });
    expect(JSON.parse(Buffer.from(String(r.body.client_info), 'base64url').toString())).toEqual({
      uid: 'alice-oid',
      utid: T,
    });
    await jwtVerify(String(r.body.id_token), createLocalJWKSet(signer.jwks), { audience: 'pub-app' });
    expect(codeOf(await token({ ...form, password: 'wrong' }))).toBe('400 50126');
    expect(codeOf(await token({ ...form, username: 'bob@contoso.test' }))).toBe('400 50034');
    expect(codeOf(await token({ ...form, client_id: 'spn-app' }))).toBe('401 7000218');
    expect(JSON.stringify([r.record])).not.toContain('"pw"');
  });

  test('workload identity: a service-account token for api://AzureADTokenExchange stands for the app; another audience or subject does not', async () => {
    const { token } = await tenant();
    const form = (assertion: string) => ({
      grant_type: 'client_credentials',
      client_id: 'wi-app',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    });
    const ok = await token(form(await saToken()));
    expect(ok.status).toBe(200);
    expect(ok.record).toMatchObject({ clientAuth: 'assertion', subject: SA, audience: [WI_AUDIENCE] });
    expect(decodeJwt(String(ok.body.access_token))).toMatchObject({ oid: 'wi-oid', aud: API });
    expect(codeOf(await token(form(await saToken({ aud: 'sts.amazonaws.com' }))))).toBe('400 700212');
    expect(codeOf(await token(form(await saToken({ sub: 'system:serviceaccount:team:other' }))))).toBe('400 700213');
  });

  test("the OpenID configuration names the tenant's JWKS, which it serves", async () => {
    const { call, signer } = await tenant();
    const conf = await call('GET', `/${T}/v2.0/.well-known/openid-configuration`);
    expect(conf.body).toMatchObject({
      issuer: entraIssuer(T),
      jwks_uri: `https://${AAD_HOST}/${T}/discovery/v2.0/keys`,
    });
    expect((await call('GET', `/${T}/discovery/v2.0/keys`)).body).toEqual(signer.jwks);
  });
});

describe('FakeEntraId over real listeners', () => {
  const tmp = useTempDir('credprov-fake-entra-');
  const fakes: FakeEntraId[] = [];
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((f) => f.stop()));
  });

  test('serves Entra ID under login.microsoftonline.com with its CA, and managed identity tokens the JWKS verifies', async () => {
    const hostsFile = join(tmp(), 'hosts');
    await writeFile(hostsFile, '127.0.0.1 localhost\n');
    const fake = new FakeEntraId({
      tenantId: T,
      apps: [],
      users: [],
      credentials: [],
      resources: [API],
      identityHeader: 'per-site-secret',
      managedIdentities: [{ objectId: 'mi-oid' }],
      tokenLifetimeS: 900,
    });
    fakes.push(fake);
    const s = await fake.start({ dir: tmp(), hostsFile: new HostsFile(hostsFile) });
    expect(await readFile(hostsFile, 'utf8')).toContain(`${s.address} ${AAD_HOST}`);
    const mi = await fetch(`${s.identityEndpoint}?api-version=2019-08-01&resource=${API}`, {
      headers: { 'X-IDENTITY-HEADER': 'per-site-secret' },
    });
    const body = (await mi.json()) as { access_token: string; expires_on: string };
    expect(decodeJwt(body.access_token)).toMatchObject({ aud: API, oid: 'mi-oid', iss: entraIssuer(T) });
    // Entra ID over TLS at its own address, its name in SNI and Host, trusting only the fake's CA.
    const jwks = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: s.address,
          port: 443,
          servername: AAD_HOST,
          path: `/${T}/discovery/v2.0/keys`,
          headers: { host: AAD_HOST },
          ca: s.caPem,
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
    });
    await jwtVerify(body.access_token, createLocalJWKSet(JSON.parse(jwks)), { audience: API });
    expect(fake.tokens()).toEqual([
      expect.objectContaining({ audience: API, objectId: 'mi-oid', clientId: 'system-assigned' }),
    ]);
    await s.unmap();
    expect(await readFile(hostsFile, 'utf8')).not.toContain(AAD_HOST);
  });
});
