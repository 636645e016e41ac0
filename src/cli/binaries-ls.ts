// credprov binaries ls: what the cache holds, one line per version (--json for machines).
import { join } from 'node:path';
import { ALL_KUBE_BINARIES, KUBE_BINARIES, kubeCacheRoot, listEntries } from '../cluster/binaries/cache.ts';
import { containerdCacheRoot, listContainerd } from '../cluster/binaries/containerd.ts';
import { listTool, toolCacheRoot } from '../cluster/kind/builds/tool-cache.ts';
import { compareVersions } from '../cluster/binaries/versions.ts';
import { cacheDir } from '../core/paths.ts';
import { formatMs } from '../core/duration.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';

export const command: Command = {
  path: ['binaries', 'ls'],
  summary: 'list the kube binaries, containerd, etcd and kind builds in the cache',
  usage: `Usage: credprov binaries ls [--json]

Lists cached kube binary sets (per version: source, when, how long it took),
containerd builds, and the etcd and kind CLI builds of --for kind, from
$CREDPROV_CACHE_DIR (default ~/.cache/credprov).
`,
  async run(argv, ctx) {
    parseFlags('binaries ls', argv, {});
    const root = cacheDir(ctx.env);
    // Skew entries hold the kubelet alone; they are listed too, with what they hold.
    const kube = (await listEntries(kubeCacheRoot(root), ['kubelet'])).sort((a, b) =>
      compareVersions(b.version, a.version),
    );
    const containerd = await listContainerd(containerdCacheRoot(root));
    const etcd = await listTool(root, 'etcd', ['etcd']);
    const kind = await listTool(root, 'kind', ['kind']);
    if (ctx.json) {
      ctx.stdout(
        `${JSON.stringify({ kube: kube.map((m) => ({ ...m, dir: join(kubeCacheRoot(root), m.version) })), containerd, etcd, kind })}\n`,
      );
      return 0;
    }
    const lines = [`kube binaries (${kubeCacheRoot(root)}):`];
    if (kube.length === 0) lines.push('  none (run: credprov binaries ensure)');
    for (const m of kube)
      lines.push(
        `  ${m.version.padEnd(9)} ${m.source.padEnd(8)} ${m.createdAt.slice(0, 19)}Z  took ${formatMs(m.durationMs)}${partial(m.binaries)}${substituted(m.substitutes)}`,
      );
    lines.push(`containerd (${containerdCacheRoot(root)}):`);
    if (containerd.length === 0) lines.push('  none');
    for (const c of containerd)
      lines.push(`  ${c.version.padEnd(9)} build    ${c.createdAt.slice(0, 19)}Z  took ${formatMs(c.durationMs)}`);
    for (const [tool, label, builds] of [
      ['etcd', 'etcd', etcd],
      ['kind', 'kind CLI', kind],
    ] as const) {
      if (builds.length === 0) continue; // only --for kind makes them
      lines.push(`${label} (${toolCacheRoot(root, tool)}):`);
      for (const b of builds)
        lines.push(`  ${b.version.padEnd(9)} build    ${b.createdAt.slice(0, 19)}Z  took ${formatMs(b.durationMs)}`);
    }
    ctx.stdout(`${lines.join('\n')}\n`);
    return 0;
  },
};

/** What a set holds beyond or short of the default five: "(kubelet only)", "(+ kubeadm)". */
function partial(binaries: Record<string, unknown>): string {
  const held = KUBE_BINARIES.filter((n) => binaries[n]);
  const extra = ALL_KUBE_BINARIES.filter((n) => binaries[n] && !held.includes(n as never));
  if (held.length === KUBE_BINARIES.length) return extra.length ? `  (+ ${extra.join(', ')})` : '';
  return `  (${[...held, ...extra].join(', ')} only)`;
}

/** A pre-release built with some staging modules of another version is not that release's exact source: say so. */
function substituted(substitutes: Record<string, string> | undefined): string {
  const taken = Object.entries(substitutes ?? {});
  return taken.length
    ? `  (not exact: ${taken.map(([m, v]) => `${m.replace(/^k8s\.io\//, '')}@${v}`).join(', ')})`
    : '';
}
