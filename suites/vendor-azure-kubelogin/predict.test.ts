// The vendor-azure-kubelogin predictions, pinned: each mode's exec (the args
// convert-kubeconfig writes, the environment a user gives it) asks Entra ID
// what the model says and the API server takes the token as aad:<oid>; the
// cache answers by app, tenant and scope, whatever the credential; the
// ExecCredential's version follows KUBERNETES_EXEC_INFO.
import { describe, expect, test } from '@jest/globals';
import { AKS_CLIENT_ID, modeExec, SERVER_ID, type Principals } from './plan.ts';
import { cacheAfter, flagsOf, predictLogin, type RunContext, type Tenant } from './predict.ts';

const P: Principals = {
  tenantId: 't-1',
  spn: { clientId: 'spn-app', secret: 's3cret' },
  ropc: { clientId: AKS_CLIENT_ID, username: 'alice@aks.test', password: 'pw' },
  workload: { clientId: 'wi-app' },
  msi: { identityHeader: 'hdr' },
  identityEndpoint: 'http://127.0.0.1:9/msi/token',
  caFile: '/ca.pem',
};
const T: Tenant = {
  tenantId: 't-1',
  spn: { clientId: 'spn-app', secret: 's3cret', objectId: 'oid-spn' },
  ropc: { clientId: AKS_CLIENT_ID, username: 'alice@aks.test', password: 'pw', objectId: 'oid-alice' },
  workload: { clientId: 'wi-app', objectId: 'oid-wi' },
  msiObjectId: 'oid-mi',
  federatedTokenValid: true,
};
const FRESH: RunContext = { cacheUsable: true, cache: {}, now: 1_000_000 };
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';

describe('the exec of each mode', () => {
  test('spn and ropc carry the ids convert-kubeconfig writes; the secret and password come from the environment', () => {
    const spn = modeExec('spn', P, '/tok');
    expect(spn.args).toEqual([
      'get-token',
      '--login',
      'spn',
      '--server-id',
      SERVER_ID,
      '--client-id',
      'spn-app',
      '--tenant-id',
      't-1',
      '--environment',
      'AzurePublicCloud',
    ]);
    expect(spn.env).toMatchObject({ AAD_SERVICE_PRINCIPAL_CLIENT_SECRET: 's3cret', SSL_CERT_FILE: '/ca.pem' });
    expect(flagsOf(modeExec('ropc', P, '/tok').args)).toMatchObject({ login: 'ropc', clientId: AKS_CLIENT_ID });
    expect(modeExec('workloadidentity', P, '/tok').args).toEqual([
      'get-token',
      '--login',
      'workloadidentity',
      '--server-id',
      SERVER_ID,
    ]);
  });
});

describe('one login per mode, through kubectl (whoami: 201 and the username)', () => {
  test.each([
    ['spn', 'client_credentials/secret:200', 'oid-spn'],
    ['ropc', 'password/none:200', 'oid-alice'],
    ['workloadidentity', 'client_credentials/assertion:200', 'oid-wi'],
    ['msi', 'msi:200', 'oid-mi'],
  ] as const)('%s: Entra answers %s and the API server says aad:%s', (mode, call, oid) => {
    expect(predictLogin(modeExec(mode, P, '/tok'), T, FRESH, 201).value).toEqual({
      entra: [call],
      pluginExit: 0,
      apiVersion: V1BETA1,
      fromCache: false,
      status: 201,
      username: `aad:${oid}`,
    });
  });

  test('a probe GET has no username, only the status', () => {
    expect(predictLogin(modeExec('spn', P, '/tok'), T, FRESH, 200).value).not.toHaveProperty('username');
  });
});

describe('the MSAL cache', () => {
  test('a second spn run in the same cache answers without a request; msi always asks', () => {
    const spn = modeExec('spn', P, '/tok');
    const first = predictLogin(spn, T, FRESH, 201);
    const cache = cacheAfter(spn, FRESH, first.value, 3_600_000);
    const second = predictLogin(spn, T, { ...FRESH, cache, now: FRESH.now + 5_000 }, 201);
    expect(second.value).toMatchObject({ entra: [], fromCache: true, status: 201, username: 'aad:oid-spn' });
    const msi = modeExec('msi', P, '/tok');
    expect(cacheAfter(msi, FRESH, predictLogin(msi, T, FRESH, 201).value, 3_600_000)).toEqual({});
  });

  test('the cached token answers a wrong secret too (the key has no credential in it); a fresh cache refuses it', () => {
    const spn = modeExec('spn', P, '/tok');
    const cache = cacheAfter(spn, FRESH, predictLogin(spn, T, FRESH, 201).value, 3_600_000);
    const wrong = { ...spn, env: { ...spn.env, AAD_SERVICE_PRINCIPAL_CLIENT_SECRET: 'wrong' } };
    expect(predictLogin(wrong, T, { ...FRESH, cache }, 201).value).toMatchObject({ fromCache: true, status: 201 });
    expect(predictLogin(wrong, T, FRESH, 201).value).toEqual({
      entra: ['client_credentials/secret:401'],
      pluginExit: 1,
      apiVersion: '',
      fromCache: false,
      status: 'no request',
    });
  });

  test('without a usable keyring nothing is cached', () => {
    const spn = modeExec('spn', P, '/tok');
    const off = { ...FRESH, cacheUsable: false };
    expect(cacheAfter(spn, off, predictLogin(spn, T, off, 201).value, 3_600_000)).toEqual({});
  });
});

describe('the environment and the version', () => {
  test('AZURE_CLIENT_ID beats --client-id', () => {
    const spn = modeExec('spn', P, '/tok');
    const args = spn.args.map((a) => (a === 'spn-app' ? 'another-app' : a));
    const v = predictLogin({ args, env: { ...spn.env, AZURE_CLIENT_ID: 'spn-app' } }, T, FRESH, 201).value;
    expect(v).toMatchObject({ entra: ['client_credentials/secret:200'], username: 'aad:oid-spn' });
    expect(predictLogin({ args, env: spn.env }, T, FRESH, 201).value.entra).toEqual(['client_credentials/secret:401']);
  });

  test('a v1 KUBERNETES_EXEC_INFO gets a v1 answer', () => {
    const execInfo = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
    expect(predictLogin(modeExec('spn', P, '/tok'), T, { ...FRESH, execInfo }, 201).value.apiVersion).toBe(
      'client.authentication.k8s.io/v1',
    );
  });
});
