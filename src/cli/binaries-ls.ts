// credprov binaries ls: what the cache holds, one line per version (--json for machines).
import { join } from 'node:path';
import { KUBE_BINARIES, kubeCacheRoot, listEntries } from '../cluster/binaries/cache.ts';
import { containerdCacheRoot, listContainerd } from '../cluster/binaries/containerd.ts';
import { compareVersions } from '../cluster/binaries/versions.ts';
import { cacheDir } from '../core/paths.ts';
import { formatMs } from '../core/duration.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';

export const command: Command = {
  path: ['binaries', 'ls'],
  summary: 'list the kube binaries and containerd builds in the cache',
  usage: `Usage: credprov binaries ls [--json]

Lists cached kube binary sets (per version: source, when, how long it took)
and containerd builds, from $CREDPROV_CACHE_DIR (default ~/.cache/credprov).
`,
  async run(argv, ctx) {
    parseFlags('binaries ls', argv, {});
    const root = cacheDir(ctx.env);
    // Skew entries hold the kubelet alone; they are listed too, with what they hold.
    const kube = (await listEntries(kubeCacheRoot(root), ['kubelet'])).sort((a, b) =>
      compareVersions(b.version, a.version),
    );
    const containerd = await listContainerd(containerdCacheRoot(root));
    if (ctx.json) {
      ctx.stdout(
        `${JSON.stringify({ kube: kube.map((m) => ({ ...m, dir: join(kubeCacheRoot(root), m.version) })), containerd })}\n`,
      );
      return 0;
    }
    const lines = [`kube binaries (${kubeCacheRoot(root)}):`];
    if (kube.length === 0) lines.push('  none (run: credprov binaries ensure)');
    for (const m of kube)
      lines.push(
        `  ${m.version.padEnd(9)} ${m.source.padEnd(8)} ${m.createdAt.slice(0, 19)}Z  took ${formatMs(m.durationMs)}${partial(m.binaries)}`,
      );
    lines.push(`containerd (${containerdCacheRoot(root)}):`);
    if (containerd.length === 0) lines.push('  none');
    for (const c of containerd)
      lines.push(`  ${c.version.padEnd(9)} build    ${c.createdAt.slice(0, 19)}Z  took ${formatMs(c.durationMs)}`);
    ctx.stdout(`${lines.join('\n')}\n`);
    return 0;
  },
};

function partial(binaries: Record<string, unknown>): string {
  const held = KUBE_BINARIES.filter((n) => binaries[n]);
  return held.length === KUBE_BINARIES.length ? '' : `  (${held.join(', ')} only)`;
}
