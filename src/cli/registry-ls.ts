// credprov registry ls: registries started by `registry up`, running or left over.
import { basename } from 'node:path';
import { listStates } from '../../registry/index.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';

export const command: Command = {
  path: ['registry', 'ls'],
  summary: 'list registries started by credprov',
  usage: `Usage: credprov registry ls [--json]

Lists registries started by 'credprov registry up': name, status (running, or
stale when its processes are gone: 'registry down --name N' clears it), host,
URL, auth mode. --json prints one JSON array instead of the table.
`,
  async run(argv, ctx) {
    parseFlags('registry ls', argv, {});
    const rows = (await listStates(ctx.env)).map((s) => ({
      name: s.state?.name ?? basename(s.dir),
      status: s.running ? 'running' : 'stale',
      host: s.state?.host ?? '',
      url: s.state?.url ?? '',
      auth: s.state?.auth ?? '',
      ...(s.state?.realm ? { realm: s.state.realm } : {}),
      ...(s.state?.caFile ? { caFile: s.state.caFile } : {}),
      ...(s.state?.credentialsFile ? { credentialsFile: s.state.credentialsFile } : {}),
      dir: s.dir,
    }));
    if (ctx.json) {
      ctx.stdout(`${JSON.stringify(rows)}\n`);
      return 0;
    }
    const cols = ['name', 'status', 'host', 'url', 'auth'] as const;
    const width = (c: (typeof cols)[number]) => Math.max(c.length, ...rows.map((r) => r[c].length));
    const line = (r: Record<(typeof cols)[number], string>) =>
      cols
        .map((c) => r[c].padEnd(width(c)))
        .join('  ')
        .trimEnd();
    ctx.stdout(`${line({ name: 'NAME', status: 'STATUS', host: 'HOST', url: 'URL', auth: 'AUTH' })}\n`);
    for (const r of rows) ctx.stdout(`${line(r)}\n`);
    return 0;
  },
};
