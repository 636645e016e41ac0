// kubectl, where kubectl itself is the point: the reference client that the
// exec-plugin suites run and test (src/clients/), and checks written the way
// a user would type them (the e2e tests, the vendors' issuer lookup). The
// harness's own API calls go through src/cluster/api.ts (@kubernetes/client-node).
import { execa } from 'execa';
import { CommandError } from '../core/errors.ts';

export interface KubeTarget {
  kubectl: string;
  kubeconfig: string;
}

export async function kubectl(
  t: KubeTarget,
  args: string[],
  opts: { input?: string; timeoutMs?: number } = {},
): Promise<string> {
  const argv = [`--kubeconfig=${t.kubeconfig}`, ...args];
  const r = await execa(t.kubectl, argv, {
    reject: false,
    all: true,
    timeout: opts.timeoutMs ?? 60_000,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });
  if (r.failed) {
    throw new CommandError(
      `kubectl ${args.slice(0, 2).join(' ')} failed: ${firstLine(String(r.stderr || r.shortMessage || ''))}`,
      {
        argv: [t.kubectl, ...argv],
        output: String(r.all ?? ''),
        ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }),
      },
    );
  }
  return r.stdout;
}

export async function kubectlJson<T = unknown>(t: KubeTarget, args: string[]): Promise<T> {
  return JSON.parse(await kubectl(t, [...args, '-o', 'json'])) as T;
}

/** `kubectl apply -f -` with objects given as JSON (server-side apply; idempotent). */
export async function apply(t: KubeTarget, objects: unknown[]): Promise<void> {
  const list = { apiVersion: 'v1', kind: 'List', items: objects };
  await kubectl(t, ['apply', '--server-side', '--force-conflicts', '--field-manager=credprov', '-f', '-'], {
    input: JSON.stringify(list),
  });
}

function firstLine(s: string): string {
  return (
    s
      .trim()
      .split('\n')
      .find((l) => l.trim()) ?? ''
  ).slice(0, 300);
}
