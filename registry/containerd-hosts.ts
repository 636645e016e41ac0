// containerd's per-host registry config for a harness registry: trusting the
// harness CA for one host (certs.d/<host:port>/hosts.toml + ca.crt), or
// reaching it over plain HTTP.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Makes containerd trust `caCertPath` for `hostPort` (or reach it over plain
 * HTTP): writes `<configPath>/<host:port>/hosts.toml` (+ ca.crt). The server is
 * the host itself, not a mirror, so pull credentials for that host are sent.
 * Returns the directory written, for removal.
 */
export async function trustForContainerd(
  configPath: string,
  hostPort: string,
  o: { caCertPath?: string; plainHttp?: boolean; server?: string },
): Promise<string> {
  const dir = join(configPath, hostPort);
  await mkdir(dir, { recursive: true });
  const lines = [`server = "${o.plainHttp ? 'http' : 'https'}://${o.server ?? hostPort}"`];
  if (o.caCertPath && !o.plainHttp) {
    const ca = join(dir, 'ca.crt');
    await writeFile(ca, await readFile(o.caCertPath));
    lines.push(`ca = "${ca}"`);
  }
  await writeFile(join(dir, 'hosts.toml'), `${lines.join('\n')}\n`);
  return dir;
}
