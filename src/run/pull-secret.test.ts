import { describe, expect, test } from '@jest/globals';
import { dockerConfigJson, pullSecret, serviceAccount } from './pull-secret.ts';

describe('pull secrets', () => {
  test('a docker config.json names each host with its login and the base64 user:password the kubelet decodes', () => {
    expect(dockerConfigJson({ 'reg.test:5000': { username: 'u', password: 'p' } })).toEqual({
      auths: { 'reg.test:5000': { username: 'u', password: 'p', auth: Buffer.from('u:p').toString('base64') } },
    });
    expect(dockerConfigJson({})).toEqual({ auths: {} });
  });

  test('a dockerconfigjson Secret carries that config, base64, under .dockerconfigjson', () => {
    const s = pullSecret({ name: 'right', namespace: 'ns', auths: { 'reg.test': { username: 'u', password: 'p' } } });
    expect(s).toMatchObject({
      kind: 'Secret',
      type: 'kubernetes.io/dockerconfigjson',
      metadata: { name: 'right', namespace: 'ns' },
    });
    const decoded = JSON.parse(Buffer.from(s.data['.dockerconfigjson'], 'base64').toString('utf8')) as unknown;
    expect(decoded).toEqual(dockerConfigJson({ 'reg.test': { username: 'u', password: 'p' } }));
  });

  test('a service account lists its pull secrets, or none', () => {
    expect(serviceAccount('ns', 'sa', ['right'])).toMatchObject({ imagePullSecrets: [{ name: 'right' }] });
    expect(serviceAccount('ns', 'sa')).not.toHaveProperty('imagePullSecrets');
  });
});
