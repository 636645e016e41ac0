// A scripted GoTool for unit tests: which versions the "proxy" lists, knows,
// refuses, and what `go build` / `go install` produce (tiny shell scripts that
// print the version the real binaries would print).
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CommandError } from '../../../core/errors.ts';
import type { GoTool, ModuleDownload, ProxyFailure } from '../go.ts';

export interface FakeGoOptions {
  listed?: string[];
  /** Versions whose .info the proxy serves (listed ones are known too). */
  known: string[];
  /** Versions whose download fails, and how. */
  failing?: Record<string, ProxyFailure>;
  /** Directory with a k/k go.mod to hand out for any version. */
  goModFile?: string;
  /** Version the built kubelet claims (default: the one being built). */
  stampOverride?: string;
  /** `go build` hangs until the caller's AbortSignal fires (an interrupted build). */
  hangBuild?: boolean;
  /** Versions whose `go mod tidy` fails because the checksum database lacks a staging module (seen for k8s.io/mount-utils@v0.35.6). */
  tidyNoChecksum?: string[];
}

export type FakeGo = GoTool & { calls: string[] };

export function fakeGo(o: FakeGoOptions): FakeGo {
  const calls: string[] = [];
  const knows = (v: string) => o.known.includes(v) || (o.listed ?? []).includes(v) || /^v0\./.test(v);
  return {
    calls,
    async version() {
      return 'go1.26.8';
    },
    async listVersions(module) {
      calls.push(`list ${module}`);
      return o.listed ?? [];
    },
    async info(module, version) {
      calls.push(`info ${module}@${version}`);
      return knows(version) ? { version, time: '2026-09-23T17:06:22Z' } : undefined;
    },
    async download(module, version): Promise<ModuleDownload> {
      calls.push(`download ${module}@${version}`);
      const failure = o.failing?.[version] ?? (knows(version) ? undefined : 'unknown-version');
      if (failure) return { ok: false, version, failure, error: `fake proxy: ${failure}` };
      return {
        ok: true,
        version,
        dir: '/nonexistent',
        ...(o.goModFile ? { goModFile: o.goModFile } : {}),
        sum: 'h1:fake=',
      };
    },
    async run(args, opts) {
      calls.push(`run ${args[0]}`);
      const building = o.tidyNoChecksum?.find((v) => opts.cwd.includes(`-${v}-`));
      if (args[0] === 'mod' && building) {
        const output = `go: k8s.io/mount-utils@v0.${building.split('.')[1]}.${building.split('.')[2]}: verifying module: reading https://sum.golang.org/lookup/k8s.io/mount-utils: 404 Not Found`;
        throw new CommandError('go mod tidy failed (exit 1)', { argv: ['go', ...args], exitCode: 1, output });
      }
      if (args[0] !== 'build') return;
      if (o.hangBuild) {
        await new Promise<never>((_, reject) => {
          if (!opts.signal) return reject(new Error('hangBuild needs a signal'));
          opts.signal.addEventListener('abort', () => reject(new Error('go build was cancelled')), { once: true });
        });
      }
      const out = args[args.indexOf('-o') + 1]!;
      const ldflags = args[args.indexOf('-ldflags') + 1]!;
      const version = o.stampOverride ?? /gitVersion=(v[\d.]+)/.exec(ldflags)![1]!;
      for (const pkg of args.slice(args.indexOf('-o') + 2)) {
        const name = pkg.split('/').pop()!;
        const file = join(out, name);
        await writeFile(file, fakeKubeBinary(name, version));
        await chmod(file, 0o755);
      }
    },
  };
}

/** A script that answers --version (and kubectl's version -o json) like the real binary. */
export function fakeKubeBinary(name: string, version: string): string {
  if (name === 'kubectl') {
    return `#!/bin/sh\necho '{"clientVersion":{"gitVersion":"${version}"}}'\n`;
  }
  if (name === 'kubeadm') return `#!/bin/sh\necho "${version}"\n`;
  return `#!/bin/sh\necho "Kubernetes ${version}"\n`;
}
