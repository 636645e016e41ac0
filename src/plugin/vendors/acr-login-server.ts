// The fake ACR login server under its real name: acr-credential-provider builds
// https://<name>.azurecr.io/v2/ from the image (port 443, no port in the name:
// azure_credentials.go:53 acrRE), so the fake serves TLS on 443 of a loopback
// address of its own, with a certificate for that name from a lab CA (the plugin
// trusts it through SSL_CERT_FILE), and an /etc/hosts line sends the name there.
// Pulls never come here: containerd reaches the lab registry through hosts.toml.
// Azure AD (login.microsoftonline.com), which MSAL calls for a client assertion,
// is served the same way, on the same address, when the lab asks for it.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HostsFile } from '../../core/hosts.ts';
import { createCA, issueServerCert } from '../../core/tls.ts';
import type { FakeAzure } from './fake-azure.ts';
import { AAD_HOST } from './fake-azure-ad.ts';
import { claimHostname, serveOnFreeLoopbackAddress } from './loopback-hostname.ts';

const HOSTS_OWNER_PREFIX = 'vendor/acr-credential-provider/';

export interface FakeLoginServer {
  /** Every name served (login servers, and Azure AD's host when asked). */
  hostnames: string[];
  address: string;
  /** The lab CA's certificate: the plugin's SSL_CERT_FILE. */
  caFile: string;
  /** Removes the /etc/hosts line (the fake's listener stops with the fake). */
  unmap(): Promise<void>;
}

export async function serveFakeLoginServer(
  fake: FakeAzure,
  o: { dir: string; loginServers: string[]; azureAd?: boolean; hostsFile?: HostsFile },
): Promise<FakeLoginServer> {
  const hosts = o.hostsFile ?? new HostsFile();
  const owner = `${HOSTS_OWNER_PREFIX}${process.pid}-${randomBytes(3).toString('hex')}`;
  const caDir = join(o.dir, 'ca');
  const ca = await createCA(caDir, 'credprov fake Azure CA');
  const hostnames = [...o.loginServers, ...(o.azureAd ? [AAD_HOST] : [])];
  const cert = await issueServerCert(ca, caDir, hostnames, 'login-server');
  const [certPem, keyPem] = await Promise.all([readFile(cert.certPath, 'utf8'), readFile(cert.keyPath, 'utf8')]);
  const address = await serveOnFreeLoopbackAddress((addr) =>
    fake.serveTls({ loginServers: o.loginServers, address: addr, port: 443, certPem, keyPem }),
  );
  for (const h of hostnames) await claimHostname(hosts, h, HOSTS_OWNER_PREFIX);
  await hosts.add({ address, hostnames, owner });
  return { hostnames, address, caFile: ca.certPath, unmap: () => hosts.remove(owner) };
}
