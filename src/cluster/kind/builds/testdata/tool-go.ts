// A scripted GoTool for the etcd and kind builds: the module download answers
// from a temp dir, and `go build` / `go install` write a script that reports
// the version the real binary would (or another one, to test the refusal).
import { appendFile, chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GoTool } from '../../../binaries/go.ts';

export type ToolGo = GoTool & { calls: string[] };

export function toolGo(o: { tmp: string; reports?: string; failDownload?: boolean }): ToolGo {
  const calls: string[] = [];
  return {
    calls,
    version: async () => 'go1.26.8',
    listVersions: async () => [],
    info: async () => undefined,
    async download(module, version) {
      calls.push(`download ${module}@${version}`);
      if (o.failDownload) return { ok: false, version, failure: 'network', error: 'dial tcp: i/o timeout' };
      const dir = join(o.tmp, 'gomodcache', `${module}@${version}`);
      await mkdir(dir, { recursive: true });
      const goModFile = join(dir, 'go.mod');
      await writeFile(goModFile, `module ${module}\n\ngo 1.26\n\ntoolchain go1.26.5\n\nreplace x => ../x\n`);
      return { ok: true, version, dir, goModFile, sum: 'h1:fake=' };
    },
    async run(args, opts) {
      calls.push(`run ${args.join(' ')}`);
      if (opts.logFile) await appendFile(opts.logFile, `go ${args.join(' ')}\n`);
      if (args[0] === 'build') {
        const out = args[args.indexOf('-o') + 1]!;
        await script(out, `echo "etcd Version: ${o.reports ?? '3.7.0'}"; echo "Git SHA: x"`);
      } else if (args[0] === 'install') {
        await script(join(opts.env!.GOBIN!, 'kind'), `echo "kind ${o.reports ?? 'v0.33.0'} go1.26.8 linux/amd64"`);
      }
    },
  };
}

async function script(path: string, body: string): Promise<void> {
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
}
