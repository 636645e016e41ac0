// Fake Azure under its real names: acr-credential-provider builds
// https://<name>.azurecr.io/v2/ from the image (port 443, no port in the name:
// azure_credentials.go:53 acrRE), and MSAL calls https://login.microsoftonline.com
// for a client assertion. Both are served on one loopback address, with a
// certificate from the fake's CA (the plugin's SSL_CERT_FILE) and an /etc/hosts line.
import { serveUnderHostnames, type ServedHostnames } from '../kit/index.ts';
import type { HostsFile } from '../../core/hosts.ts';
import { AAD_HOST } from './entra-id.ts';

const HOSTS_OWNER_PREFIX = 'vendor/acr-credential-provider/';

export type FakeLoginServer = ServedHostnames;

/** What it needs of FakeAzure: an https listener for the login servers (and Entra ID when it has one). */
interface ServesTls {
  serveTls(o: {
    loginServers: string[];
    address: string;
    port: number;
    certPem: string;
    keyPem: string;
  }): Promise<unknown>;
}

export function serveFakeLoginServer(
  fake: ServesTls,
  o: { dir: string; loginServers: string[]; azureAd?: boolean; hostsFile?: HostsFile },
): Promise<FakeLoginServer> {
  return serveUnderHostnames(
    {
      hostnames: [...o.loginServers, ...(o.azureAd ? [AAD_HOST] : [])],
      dir: o.dir,
      caName: 'credprov fake Azure CA',
      ownerPrefix: HOSTS_OWNER_PREFIX,
      ...(o.hostsFile ? { hostsFile: o.hostsFile } : {}),
    },
    (at) => fake.serveTls({ loginServers: o.loginServers, ...at }),
  );
}
