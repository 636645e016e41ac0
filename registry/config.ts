// distribution's config.yml for a harness registry, from an auth mode and paths.
// Pure: the provider decides the paths and writes the files.
import { stringify } from 'yaml';

export interface RegistryConfigInput {
  listen: string;
  storageDir: string;
  secret: string;
  tls?: { certPath: string; keyPath: string };
  auth:
    | { mode: 'none' }
    | { mode: 'htpasswd'; realm: string; path: string }
    | { mode: 'token'; realm: string; service: string; issuer: string; rootCertBundle: string };
}

export function registryConfig(c: RegistryConfigInput): string {
  const auth =
    c.auth.mode === 'htpasswd'
      ? { htpasswd: { realm: c.auth.realm, path: c.auth.path } }
      : c.auth.mode === 'token'
        ? {
            token: {
              realm: c.auth.realm,
              service: c.auth.service,
              issuer: c.auth.issuer,
              rootcertbundle: c.auth.rootCertBundle,
            },
          }
        : undefined;
  const doc = {
    version: 0.1,
    log: { level: 'info', formatter: 'text', fields: { service: 'registry' } },
    storage: {
      filesystem: { rootdirectory: c.storageDir },
      delete: { enabled: true },
      // No background upload purging: a test registry lives minutes, not days.
      maintenance: { uploadpurging: { enabled: false } },
    },
    http: {
      addr: c.listen,
      secret: c.secret,
      headers: { 'X-Content-Type-Options': ['nosniff'] },
      ...(c.tls ? { tls: { certificate: c.tls.certPath, key: c.tls.keyPath } } : {}),
    },
    ...(auth ? { auth } : {}),
  };
  return stringify(doc);
}
