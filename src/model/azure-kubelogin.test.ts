// The Azure kubelogin model: options (the environment wins), the request each
// non-browser mode sends, the apiVersion it answers, its cache, and what
// convert-kubeconfig writes (the args below are the real binary's output,
// v0.2.22, on an AKS devicecode kubeconfig).
import { describe, expect, test } from '@jest/globals';
import {
  answersFromCache,
  msalCacheKey,
  azureExecApiVersion,
  azureScope,
  convertedArgs,
  planAzureTokenRequest,
  resolveAzureOptions,
  secretsInArgs,
} from './azure-kubelogin.ts';

const SERVER = '6dae42f8-4368-4678-94ff-3960e28e3630';
const AKS_ARGS = [
  'get-token',
  '--environment',
  'AzurePublicCloud',
  '--server-id',
  SERVER,
  '--client-id',
  '80faf920-1908-4b52-b5ef-a8e7bedfc67a',
  '--tenant-id',
  '72f988bf-0000-0000-0000-000000000000',
  '--login',
  'devicecode',
];

describe('options', () => {
  test('the environment overwrites flags, unless --disable-environment-override', () => {
    const flags = { login: 'spn', clientId: 'flag-id', tenantId: 'flag-tenant', serverId: SERVER };
    const env = { AZURE_CLIENT_ID: 'env-id', AAD_SERVICE_PRINCIPAL_CLIENT_ID: 'aad-id', AZURE_TENANT_ID: 'env-tenant' };
    expect(resolveAzureOptions(flags, env)).toMatchObject({ clientId: 'env-id', tenantId: 'env-tenant' });
    expect(resolveAzureOptions({ ...flags, disableEnvironmentOverride: true }, env)).toMatchObject({
      clientId: 'flag-id',
      tenantId: 'flag-tenant',
    });
    expect(resolveAzureOptions(flags, { AAD_LOGIN_METHOD: 'ropc' }).login).toBe('ropc');
  });

  test('workload identity takes its file and authority from the environment', () => {
    const o = resolveAzureOptions(
      { login: 'workloadidentity', serverId: SERVER },
      {
        AZURE_FEDERATED_TOKEN_FILE: '/var/run/t',
        AZURE_AUTHORITY_HOST: 'https://login.example/',
        AZURE_TENANT_ID: 't',
        AZURE_CLIENT_ID: 'c',
      },
    );
    expect(o).toMatchObject({
      federatedTokenFile: '/var/run/t',
      authorityHost: 'https://login.example/',
      tenantId: 't',
      clientId: 'c',
    });
    // Not for other modes.
    expect(
      resolveAzureOptions({ login: 'spn' }, { AZURE_FEDERATED_TOKEN_FILE: '/x' }).federatedTokenFile,
    ).toBeUndefined();
  });
});

describe('token requests', () => {
  test.each([
    [SERVER, `${SERVER}/.default`],
    [`${SERVER}/`, `${SERVER}/.default`],
    ['api://x/.default', 'api://x/.default'],
  ])('scope of %s is %s', (id, scope) => expect(azureScope(id)).toBe(scope));

  test('spn: client credentials with the secret', () => {
    expect(
      planAzureTokenRequest({ login: 'spn', serverId: SERVER, clientId: 'c', tenantId: 't', clientSecret: 's' }),
    ).toEqual({
      ok: true,
      request: {
        endpoint: 'token',
        tenant: 't',
        form: { grant_type: 'client_credentials', client_id: 'c', client_secret: 's', scope: `${SERVER}/.default` },
      },
    });
  });

  test('workload identity: client credentials with the file as a jwt-bearer assertion', () => {
    const p = planAzureTokenRequest(
      { login: 'workloadidentity', serverId: SERVER, clientId: 'c', tenantId: 't', federatedTokenFile: '/f' },
      'sa.jwt',
    );
    expect(p.ok && p.request.endpoint === 'token' && p.request.form).toMatchObject({
      client_assertion: 'sa.jwt',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    });
  });

  test('ropc asks openid offline_access profile too; msi asks the resource, not the scope', () => {
    const r = planAzureTokenRequest({
      login: 'ropc',
      serverId: SERVER,
      clientId: 'c',
      tenantId: 't',
      username: 'u',
      password: 'p',
    });
    expect(r.ok && r.request.endpoint === 'token' && r.request.form.scope).toBe(
      `${SERVER}/.default openid offline_access profile`,
    );
    expect(planAzureTokenRequest({ login: 'msi', serverId: SERVER })).toEqual({
      ok: true,
      request: { endpoint: 'managed-identity', resource: SERVER },
    });
  });

  test.each([
    [{ login: 'spn', clientId: 'c', tenantId: 't', clientSecret: 's' }, 'server-id is required'],
    [{ login: 'spn', serverId: SERVER, tenantId: 't', clientSecret: 's' }, 'client ID cannot be empty'],
    [{ login: 'spn', serverId: SERVER, clientId: 'c', tenantId: 't' }, 'client secret cannot be empty'],
    [{ login: 'nope', serverId: SERVER }, "'nope' is not a supported login method"],
    [{ login: 'spn', serverId: SERVER, authorityHost: 'https://x' }, 'authority host "https://x" is not valid'],
    [{ login: 'devicecode', serverId: SERVER }, expect.stringContaining('needs a browser')],
  ])('%j fails: %s', (o, error) => expect(planAzureTokenRequest(o)).toEqual({ ok: false, error }));
});

describe('answer and cache', () => {
  test.each([
    [undefined, { ok: true, apiVersion: 'client.authentication.k8s.io/v1beta1' }],
    ['', { ok: true, apiVersion: 'client.authentication.k8s.io/v1beta1' }],
    ['{"kind":"ExecCredential"}', { ok: true, apiVersion: 'client.authentication.k8s.io/v1beta1' }],
    ['{"apiVersion":"client.authentication.k8s.io/v1"}', { ok: true, apiVersion: 'client.authentication.k8s.io/v1' }],
    [
      '{"apiVersion":"client.authentication.k8s.io/v1alpha1"}',
      { ok: false, error: 'api version: client.authentication.k8s.io/v1alpha1 is not supported' },
    ],
    ['{', { ok: false, error: expect.stringContaining('cannot unmarshal') }],
  ])('KUBERNETES_EXEC_INFO %j', (info, want) => expect(azureExecApiVersion(info)).toEqual(want));

  test('a cached token answers until 5 minutes before it expires, never for msi or without the keyring', () => {
    const now = 1_000_000_000;
    expect(answersFromCache({ mode: 'spn', cacheAvailable: true, cachedExpiresOn: now + 6 * 60_000, now })).toBe(true);
    expect(answersFromCache({ mode: 'spn', cacheAvailable: true, cachedExpiresOn: now + 4 * 60_000, now })).toBe(false);
    expect(answersFromCache({ mode: 'msi', cacheAvailable: true, cachedExpiresOn: now + 60 * 60_000, now })).toBe(
      false,
    );
    expect(answersFromCache({ mode: 'spn', cacheAvailable: false, cachedExpiresOn: now + 60 * 60_000, now })).toBe(
      false,
    );
  });
});

describe('convert-kubeconfig', () => {
  test('spn with --client-secret: the secret is written into the args (the real binary wrote exactly these)', () => {
    const args = convertedArgs({
      login: 'spn',
      existingArgs: AKS_ARGS,
      flags: { clientId: '11111111-1111-1111-1111-111111111111', clientSecret: 's3cr3t' },
    });
    expect(args).toEqual([
      'get-token',
      '--login',
      'spn',
      '--server-id',
      SERVER,
      '--client-id',
      '11111111-1111-1111-1111-111111111111',
      '--tenant-id',
      '72f988bf-0000-0000-0000-000000000000',
      '--environment',
      'AzurePublicCloud',
      '--client-secret',
      's3cr3t',
    ]);
    expect(secretsInArgs(args)).toEqual(['--client-secret']);
  });

  test('workload identity keeps only the server id (the rest comes from AZURE_* at get-token)', () => {
    expect(convertedArgs({ login: 'workloadidentity', existingArgs: AKS_ARGS, flags: {} })).toEqual([
      'get-token',
      '--login',
      'workloadidentity',
      '--server-id',
      SERVER,
    ]);
  });
});

describe('msalCacheKey', () => {
  test('keys an app token by tenant, client and scope, a user token by the user too, never by the credential; msi is never cached', () => {
    const spn = { login: 'spn', serverId: 'api-1', clientId: 'c1', tenantId: 't1', clientSecret: 's1' };
    expect(msalCacheKey(spn)).toBe('login.microsoftonline.com|t1|c1|api-1/.default|app');
    expect(msalCacheKey({ ...spn, clientSecret: 'another' })).toBe(msalCacheKey(spn));
    expect(msalCacheKey({ ...spn, clientId: 'c2' })).not.toBe(msalCacheKey(spn));
    const ropc = {
      login: 'ropc',
      serverId: 'api-1',
      clientId: 'c1',
      tenantId: 't1',
      username: 'Alice@x',
      password: 'p',
    };
    expect(msalCacheKey(ropc)).toBe('login.microsoftonline.com|t1|c1|api-1/.default|user:alice@x');
    expect(msalCacheKey({ login: 'msi', serverId: 'api-1' })).toBeUndefined();
  });
});
