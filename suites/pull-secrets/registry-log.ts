// What the registry's log says about the kubelet's pulls: who authenticated
// against a repository, in what order. distribution logs `error
// authenticating user "X"` for refused basic auth and `authorized request`
// for a request it let through (2.8 does not log whom it authorized).
import { readFile } from 'node:fs/promises';
import type { Evidence, LabRegistry, SuiteSetup } from '../../src/run/kit.ts';

export interface AuthAttempt {
  /** The user name the registry refused; undefined for an authorized request. */
  user?: string;
  ok: boolean;
}

/**
 * containerd's authentications against `repository` in log order, consecutive
 * repeats folded. The harness's own pushes (no containerd user agent) are left out.
 */
export function parseAuthTrail(log: string, repository: string): AuthAttempt[] {
  const out: AuthAttempt[] = [];
  for (const line of log.split('\n')) {
    if (!line.includes(`/v2/${repository}/`) || !line.includes('useragent=containerd')) continue;
    const refused = /error authenticating user \\?"([^"\\]+)\\?"/.exec(line);
    const attempt: AuthAttempt | undefined = refused
      ? { user: refused[1]!, ok: false }
      : line.includes('msg="authorized request"')
        ? { ok: true }
        : undefined;
    if (!attempt) continue;
    const previous = out.at(-1);
    if (!previous || previous.user !== attempt.user || previous.ok !== attempt.ok) out.push(attempt);
  }
  return out;
}

export async function authTrail(lab: LabRegistry, repository: string): Promise<AuthAttempt[]> {
  return parseAuthTrail(await readFile(lab.registry.logFile, 'utf8').catch(() => ''), repository);
}

/**
 * Who offered what: a refused user names its source through `refused` (each
 * wrong credential has its own user); an accepted request can only be the
 * right credential, whose source the caller knows (`accepted`).
 */
export function triedBy(trail: AuthAttempt[], refused: Record<string, string>, accepted: string): string[] {
  const sources = trail.map((x) => (x.ok ? accepted : (refused[x.user!] ?? `unknown user ${x.user}`)));
  return sources.filter((x, i) => i === 0 || sources[i - 1] !== x);
}

/** The registry's last lines about `repositories`, redacted: evidence for a failing case. */
export async function registryExcerpt(lab: LabRegistry, repositories: string[], ctx: SuiteSetup): Promise<Evidence[]> {
  const text = await readFile(lab.registry.logFile, 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  const lines = text
    .split('\n')
    .filter((l) => repositories.some((r) => l.includes(`/v2/${r}/`)))
    .slice(-20);
  if (lines.length === 0) return [];
  return [
    {
      kind: 'log',
      label: 'registry log excerpt',
      file: lab.registry.logFile,
      text: ctx.redactor.text(lines.join('\n')),
    },
  ];
}
