// containerd's per-host registry config for a harness registry: trusting the
// harness CA for one host (certs.d/<host:port>/hosts.toml + ca.crt), or
// reaching it over plain HTTP; optionally with [host."…"] mirror entries,
// which containerd tries before the server, in file order.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A [host."url"] entry: another registry containerd tries first for this image host. */
export interface MirrorEntry {
  /** `https://127.0.0.5:5001` (optionally with a path). */
  url: string;
  /** The CA that signed the mirror's certificate (copied next to hosts.toml). */
  caCertPath?: string;
  /** pull / resolve / push / referrers; absent: containerd's default, all of them. */
  capabilities?: string[];
  overridePath?: boolean;
}

/** hosts.toml text: top-level keys first (TOML puts everything after a table header into that table), then the mirrors in order. */
export function hostsTomlText(
  server: { url: string; caFile?: string },
  mirrors: Array<Omit<MirrorEntry, 'caCertPath'> & { caFile?: string }> = [],
): string {
  const lines = [`server = "${server.url}"`];
  if (server.caFile) lines.push(`ca = "${server.caFile}"`);
  for (const m of mirrors) {
    lines.push('', `[host."${m.url}"]`);
    if (m.capabilities) lines.push(`  capabilities = [${m.capabilities.map((c) => `"${c}"`).join(', ')}]`);
    if (m.caFile) lines.push(`  ca = "${m.caFile}"`);
    if (m.overridePath) lines.push('  override_path = true');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Makes containerd trust `caCertPath` for `hostPort` (or reach it over plain
 * HTTP): writes `<configPath>/<host:port>/hosts.toml` (+ ca.crt). The server is
 * the host itself or `server` (never a mirror), so pull credentials for that
 * host are sent; `mirrors` are tried before it, and get them too when they
 * ask. Returns the directory written, for removal.
 */
export async function trustForContainerd(
  configPath: string,
  hostPort: string,
  o: { caCertPath?: string; plainHttp?: boolean; server?: string; mirrors?: MirrorEntry[] },
): Promise<string> {
  const dir = join(configPath, hostPort);
  await mkdir(dir, { recursive: true });
  let caFile: string | undefined;
  if (o.caCertPath && !o.plainHttp) {
    caFile = join(dir, 'ca.crt');
    await writeFile(caFile, await readFile(o.caCertPath));
  }
  const mirrors = [];
  for (const [i, m] of (o.mirrors ?? []).entries()) {
    let mirrorCa: string | undefined;
    if (m.caCertPath && m.url.startsWith('https:')) {
      mirrorCa = join(dir, `mirror-${i}-ca.crt`);
      await writeFile(mirrorCa, await readFile(m.caCertPath));
    }
    mirrors.push({
      url: m.url,
      ...(m.capabilities ? { capabilities: m.capabilities } : {}),
      ...(m.overridePath ? { overridePath: true } : {}),
      ...(mirrorCa ? { caFile: mirrorCa } : {}),
    });
  }
  const url = `${o.plainHttp ? 'http' : 'https'}://${o.server ?? hostPort}`;
  await writeFile(join(dir, 'hosts.toml'), hostsTomlText({ url, ...(caFile ? { caFile } : {}) }, mirrors));
  return dir;
}
