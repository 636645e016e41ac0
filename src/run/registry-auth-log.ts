// What an htpasswd lab registry's own log (distribution 2.8) says about the
// logins containerd offered it for a repository: the one witness of a refused
// credential, since the kubelet hands containerd every credential it has and
// containerd tries them in turn. The harness's own pushes (no containerd user
// agent) are left out.
import { readFile, stat } from 'node:fs/promises';
import type { Evidence } from '../report/model.ts';
import type { Redactor } from '../core/redact.ts';
import type { LabRegistry } from './lab.ts';

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

/** The registry's last lines about `repositories`, redacted: evidence for a failing case. */
export async function registryExcerpt(
  lab: LabRegistry,
  repositories: string[],
  ctx: { redactor: Redactor },
): Promise<Evidence[]> {
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

// containerd's attempts, each opened by the anonymous request a PullImage starts with.

export interface PullAttempt {
  /** The user the registry refused; "" when nothing followed the anonymous request. */
  user: string;
  /** Whether the registry let a request of this attempt through. */
  ok: boolean;
}

/** containerd's attempts against `repository` in these log lines, in order. */
export function parsePullAttempts(log: string, repository: string): PullAttempt[] {
  const out: PullAttempt[] = [];
  for (const line of log.split('\n')) {
    if (!line.includes(`/v2/${repository}/`) || !line.includes('useragent=containerd')) continue;
    if (/basic authentication challenge .*invalid authorization credential/.test(line)) {
      out.push({ user: '', ok: false });
      continue;
    }
    const current = out.at(-1);
    if (!current) continue;
    const refused = /error authenticating user \\?"([^"\\]+)\\?"/.exec(line);
    if (refused) current.user = refused[1]!;
    else if (line.includes('msg="authorized request"')) current.ok = true;
  }
  return out;
}

/** The registry's log from now on: `read` parses what was written after this call. */
export async function pullAttemptsSince(
  lab: LabRegistry,
): Promise<{ read(repository: string): Promise<PullAttempt[]> }> {
  const file = lab.registry.logFile;
  const offset = await stat(file).then(
    (s) => s.size,
    () => 0,
  );
  return {
    async read(repository) {
      const text = await readFile(file).catch(() => Buffer.alloc(0));
      return parsePullAttempts(text.subarray(offset).toString('utf8'), repository);
    },
  };
}
