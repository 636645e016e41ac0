// A fake cloud under the cloud's real host names, for clients that build URLs
// from a name (STS for aws-iam-authenticator, an ACR login server and Entra ID
// for acr-credential-provider): a certificate for those names from a CA of the
// fake's own (the client trusts it through SSL_CERT_FILE), a listener on port 443
// of a loopback address of its own, and an /etc/hosts line sending the names there
// (credprov's hosts helper, owner-tagged, removed by unmap()).
import { randomBytes, randomInt } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PrerequisiteError } from '../../core/errors.ts';
import { HostsFile } from '../../core/hosts.ts';
import { pidExists } from '../../core/pids.ts';
import { createCA, issueServerCert } from '../../core/tls.ts';

export interface ServedHostnames {
  hostnames: string[];
  /** The loopback address the names resolve to while mapped. */
  address: string;
  /** The fake's CA certificate: what the client trusts (its SSL_CERT_FILE). */
  caFile: string;
  /** Removes the /etc/hosts line (the listener stops with the fake). */
  unmap(): Promise<void>;
}

/**
 * Makes the CA and certificate under `dir`, has `listen` serve https with them on
 * port 443 of a free loopback address, then maps the names there. `ownerPrefix`
 * (`vendor/<plugin>/`) tags the hosts line, and finds the lines of crashed runs.
 */
export async function serveUnderHostnames(
  o: { hostnames: string[]; dir: string; caName: string; ownerPrefix: string; hostsFile?: HostsFile },
  listen: (at: { address: string; port: number; certPem: string; keyPem: string }) => Promise<unknown>,
): Promise<ServedHostnames> {
  const hosts = o.hostsFile ?? new HostsFile();
  const caDir = join(o.dir, 'ca');
  const ca = await createCA(caDir, o.caName);
  const cert = await issueServerCert(ca, caDir, o.hostnames, 'server');
  const [certPem, keyPem] = await Promise.all([readFile(cert.certPath, 'utf8'), readFile(cert.keyPath, 'utf8')]);
  const address = await serveOnFreeLoopbackAddress((addr) => listen({ address: addr, port: 443, certPem, keyPem }));
  for (const h of o.hostnames) await claimHostname(hosts, h, o.ownerPrefix);
  const owner = `${o.ownerPrefix}${process.pid}-${randomBytes(3).toString('hex')}`;
  await hosts.add({ address, hostnames: o.hostnames, owner });
  return { hostnames: o.hostnames, address, caFile: ca.certPath, unmap: () => hosts.remove(owner) };
}

/** Binds with `serve` on a random 127.x.y.z until one is free (port 443 of 127.0.0.1 may be anyone's). */
export async function serveOnFreeLoopbackAddress(serve: (address: string) => Promise<unknown>): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const address = `127.${randomInt(100, 250)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
    try {
      await serve(address);
      return address;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 10) throw err;
    }
  }
}

/**
 * /etc/hosts can send a name to one address only: a line another live lab holds
 * for this hostname is a conflict to name, not to overwrite. Lines of labs
 * (owners `<ownerPrefix><pid>-…`) whose process is gone (a crashed run) are removed first.
 */
export async function claimHostname(hosts: HostsFile, hostname: string, ownerPrefix: string): Promise<void> {
  await hosts.prune((owner) => {
    const m = new RegExp(`^${ownerPrefix.replace(/\//g, '\\/')}(\\d+)-`).exec(owner);
    return !!m && !pidExists(Number(m[1]));
  });
  const holder = (await hosts.entries()).find((e) => e.hostnames.includes(hostname));
  if (holder) {
    throw new PrerequisiteError(
      `${hostname} is already mapped in ${hosts.path} by '${holder.owner}' (another credprov lab that is still running)`,
      { hint: 'wait for it to finish, or give this lab another name' },
    );
  }
}
