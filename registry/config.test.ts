import { describe, test, expect } from '@jest/globals';
import { parse } from 'yaml';
import { registryConfig } from './config.ts';

describe('registryConfig', () => {
  test('token mode names realm, service, issuer and the root certificate bundle', () => {
    const doc = parse(
      registryConfig({
        listen: '127.0.0.1:5000',
        storageDir: '/s',
        secret: 'x',
        auth: {
          mode: 'token',
          realm: 'http://127.0.0.1:1/token',
          service: 'svc',
          issuer: 'iss',
          rootCertBundle: '/b.crt',
        },
      }),
    );
    expect(doc.auth).toEqual({
      token: { realm: 'http://127.0.0.1:1/token', service: 'svc', issuer: 'iss', rootcertbundle: '/b.crt' },
    });
    expect(doc.http.addr).toBe('127.0.0.1:5000');
    expect(doc.storage.filesystem.rootdirectory).toBe('/s');
  });

  test('htpasswd mode with TLS sets both sections; no-auth mode has no auth section', () => {
    const doc = parse(
      registryConfig({
        listen: 'a:1',
        storageDir: '/s',
        secret: 'x',
        tls: { certPath: '/c', keyPath: '/k' },
        auth: { mode: 'htpasswd', realm: 'r', path: '/h' },
      }),
    );
    expect(doc.auth).toEqual({ htpasswd: { realm: 'r', path: '/h' } });
    expect(doc.http.tls).toEqual({ certificate: '/c', key: '/k' });
    expect(
      parse(registryConfig({ listen: 'a:1', storageDir: '/s', secret: 'x', auth: { mode: 'none' } })).auth,
    ).toBeUndefined();
  });
});
