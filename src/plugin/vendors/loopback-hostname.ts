// A fake cloud endpoint under its real hostname: a server on port 443 of a
// loopback address of its own, and an /etc/hosts line (credprov's hosts helper)
// sending the name there. Plugins that build URLs from a hostname (STS for
// aws-iam-authenticator, an ACR login server for acr-credential-provider) then
// reach the fake and nothing else.
import { randomInt } from 'node:crypto';
import { PrerequisiteError } from '../../core/errors.ts';
import type { HostsFile } from '../../core/hosts.ts';
import { pidExists } from '../../core/pids.ts';

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
