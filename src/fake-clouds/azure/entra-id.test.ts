// The fake Entra ID (Azure AD): instance discovery and OpenID configuration as
// MSAL reads them, and client assertions verified like a federated identity
// credential. Driven in process through the kit (FakeCloud.exchange), no socket.
import { describe, expect, test } from '@jest/globals';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { cloudRequest, FakeCloud, type CloudRecord } from '../kit/index.ts';
import { AAD_HOST, FakeAzureAd, type EntraIdSeen } from './index.ts';

const ISSUER = 'https://kubernetes.default.svc';
const cred = { tenantId: 't1', clientId: 'app1', subject: 'system:serviceaccount:default:puller', audience: 'aud1' };
const { privateKey, publicKey } = await generateKeyPair('RS256');
const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
const other = await generateKeyPair('RS256');

const mint = (o: { sub?: string; aud?: string; exp?: number; key?: typeof privateKey } = {}) =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setSubject(o.sub ?? cred.subject)
    .setAudience(o.aud ?? cred.audience)
    .setExpirationTime(o.exp ?? Math.floor(Date.now() / 1000) + 600)
    .sign(o.key ?? privateKey);

type Seen = CloudRecord & EntraIdSeen;

/** One call to Entra ID's endpoint, in process: its status, parsed body and what the record kept. */
async function call(
  aad: FakeAzureAd,
  issue: Parameters<FakeAzureAd['endpoint']>[0],
  method: string,
  url: URL,
  body = '',
) {
  const cloud = new FakeCloud<Seen>({ name: 'Entra ID' });
  const req = cloudRequest({ method, target: url.pathname + url.search, headers: { host: AAD_HOST }, body });
  const { reply, record } = await cloud.exchange(aad.endpoint<Seen>(issue), req);
  return { status: reply.status, body: JSON.parse(String(reply.body)) as unknown, seen: record };
}

function fake() {
  const aad = new FakeAzureAd([cred]);
  aad.trustOidc({ issuer: ISSUER, jwks: { keys: [jwk] } });
  const issued: string[] = [];
  const issue = (resource: string, identity: string) => {
    issued.push(`${resource} ${identity}`);
    return { token: 'tok', expiresIn: 3600 };
  };
  const token = async (assertion: string, o: { tenant?: string; clientId?: string } = {}) =>
    call(
      aad,
      issue,
      'POST',
      new URL(`https://${AAD_HOST}/${o.tenant ?? 't1'}/oauth2/v2.0/token`),
      new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: o.clientId ?? 'app1',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
        scope: 'https://containerregistry.azure.net/.default',
      }).toString(),
    );
  return { aad, issued, token };
}

describe('fake Entra ID', () => {
  test('instance discovery and the OpenID configuration name the tenant', async () => {
    const { aad } = fake();
    const authorize = encodeURIComponent(`https://${AAD_HOST}/t1/oauth2/v2.0/authorize`);
    const inst = await call(
      aad,
      () => ({ token: '', expiresIn: 0 }),
      'GET',
      new URL(`https://${AAD_HOST}/common/discovery/instance?api-version=1.1&authorization_endpoint=${authorize}`),
    );
    expect(inst.body).toMatchObject({
      tenant_discovery_endpoint: `https://${AAD_HOST}/t1/v2.0/.well-known/openid-configuration`,
    });
    const oidc = await call(
      aad,
      () => ({ token: '', expiresIn: 0 }),
      'GET',
      new URL(`https://${AAD_HOST}/t1/v2.0/.well-known/openid-configuration`),
    );
    expect(oidc.body).toMatchObject({
      issuer: `https://${AAD_HOST}/t1/v2.0`,
      token_endpoint: `https://${AAD_HOST}/t1/oauth2/v2.0/token`,
    });
  });

  test("a token for the federated credential's subject and audience gets an access token for the scope's resource", async () => {
    const { token, issued } = fake();
    const r = await token(await mint());
    expect(r.status).toBe(200);
    expect(r.seen).toMatchObject({ tenant: 't1', clientId: 'app1', subject: cred.subject, audience: ['aud1'] });
    expect(issued).toEqual(['https://containerregistry.azure.net app1']);
  });

  test('refuses another subject, audience, app or tenant, an expired token and a token signed by another key, each with its AADSTS code', async () => {
    const { token, issued } = fake();
    const refused = async (p: ReturnType<typeof token>) => {
      const r = await p;
      return `${r.status} ${(r.body as { error_codes?: number[] }).error_codes?.[0] ?? ''}`;
    };
    expect(await refused(token(await mint({ sub: 'system:serviceaccount:default:other' })))).toBe('400 700213');
    expect(await refused(token(await mint({ aud: 'other' })))).toBe('400 700212');
    expect(await refused(token(await mint(), { clientId: 'app2' }))).toBe('400 700016');
    expect(await refused(token(await mint(), { tenant: 't2' }))).toBe('400 90002');
    expect(await refused(token(await mint({ exp: Math.floor(Date.now() / 1000) - 60 })))).toBe('400 700024');
    expect(await refused(token(await mint({ key: other.privateKey })))).toBe('401 50027');
    expect(issued).toEqual([]);
  });
});
