import { describe, expect, test } from '@jest/globals';
import { expectedToken, predictApiServer, predictCall, predictRun, type RunPlan } from './predict.ts';

const now = 1_800_000_000_000;
const base: RunPlan = { grant: 'password', issuerCaTrusted: true, nowMs: now };
const audiences = ['app', 'robot'];
const idToken = expectedToken({
  clientId: 'app',
  subject: 'alice',
  accessTokenAudience: 'api',
  lifetimeSec: 3600,
  nowMs: now,
});

describe('kubelogin get-token model', () => {
  test('no cache: discovery, then the grant with Basic client auth; the id_token is printed', () => {
    expect(predictRun(base).value).toEqual({
      pluginExit: 0,
      discovery: true,
      tokenCalls: ['password/basic:200'],
      prints: 'id_token',
    });
    expect(predictRun({ ...base, grant: 'client-credentials' }).value.tokenCalls).toEqual([
      'client_credentials/basic:200',
    ]);
  });

  test('a cached token not yet expired is printed without any request; exp equal to now still counts (exp.Before(now))', () => {
    for (const expMs of [now + 60_000, now])
      expect(predictRun({ ...base, cache: { expMs, refreshToken: 'valid' } }).value).toEqual({
        pluginExit: 0,
        discovery: false,
        tokenCalls: [],
        prints: 'cached token',
      });
  });

  test('expired: refresh_token grant; revoked: refresh twice (Basic, then body), then the password grant; none: the grant', () => {
    const expired = (refreshToken: 'valid' | 'revoked' | 'none') =>
      predictRun({ ...base, cache: { expMs: now - 1, refreshToken } }).value.tokenCalls;
    expect(expired('valid')).toEqual(['refresh_token/basic:200']);
    expect(expired('revoked')).toEqual(['refresh_token/basic:400', 'refresh_token/body:400', 'password/basic:200']);
    expect(expired('none')).toEqual(['password/basic:200']);
  });

  test('a CA that does not verify the issuer: the plugin fails before any request, even with a valid refresh token in the cache', () => {
    expect(predictRun({ ...base, issuerCaTrusted: false }).value).toEqual({
      pluginExit: 1,
      discovery: false,
      tokenCalls: [],
      prints: 'nothing',
      failure: 'x509',
    });
    expect(
      predictRun({ ...base, issuerCaTrusted: false, cache: { expMs: now - 1, refreshToken: 'valid' } }).value
        .pluginExit,
    ).toBe(1);
  });

  test('a wrong client secret: 401 invalid_client, probed twice for the password grant (Basic, body), once for client credentials; the plugin fails', () => {
    expect(predictRun({ ...base, clientSecretValid: false }).value).toEqual({
      pluginExit: 1,
      discovery: true,
      tokenCalls: ['password/basic:401', 'password/body:401'],
      prints: 'nothing',
      failure: 'invalid_client',
    });
    expect(predictRun({ ...base, grant: 'client-credentials', clientSecretValid: false }).value.tokenCalls).toEqual([
      'client_credentials/basic:401',
    ]);
  });

  test('--oidc-use-access-token prints the access_token', () => {
    expect(predictRun({ ...base, useAccessToken: true }).value.prints).toBe('access_token');
  });
});

describe('API server JWT authenticator', () => {
  test('an id_token (aud = client id) is accepted as oidc:<sub>', () => {
    expect(predictApiServer(idToken, audiences, now).value).toEqual({ status: 200, username: 'oidc:alice' });
  });

  test('an access_token (aud = the resource) is refused; so is an expired token', () => {
    const access = expectedToken({
      clientId: 'app',
      subject: 'alice',
      useAccessToken: true,
      accessTokenAudience: 'api',
      lifetimeSec: 3600,
      nowMs: now,
    });
    expect(access.aud).toBe('api');
    expect(predictApiServer(access, audiences, now).value).toEqual({ status: 401 });
    expect(predictApiServer(idToken, audiences, idToken.expMs + 1).value).toEqual({ status: 401 });
  });

  test('a call: the plugin failing means no request at all; otherwise the API server decides', () => {
    expect(predictCall({ ...base, issuerCaTrusted: false }, idToken, audiences).value).toEqual({
      status: 'no request',
      tokenCalls: [],
      prints: 'nothing',
      failure: 'x509',
    });
    expect(predictCall(base, idToken, audiences).value).toEqual({
      status: 200,
      username: 'oidc:alice',
      tokenCalls: ['password/basic:200'],
      prints: 'id_token',
    });
  });
});
