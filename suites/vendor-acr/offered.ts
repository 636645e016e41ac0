// What the kubelet handed containerd for one failing pull, read from the lab
// registry's log (distribution 2.8, htpasswd): each PullImage call starts
// anonymously (`basic authentication challenge … invalid authorization
// credential`); a credential with a user name then shows as `error
// authenticating user "X"`, an empty one shows nothing more (containerd has no
// basic credentials to send). So every anonymous challenge opens an attempt,
// named by the user it then offered, or "(none: anonymous)".
import { readFile, stat } from 'node:fs/promises';
import type { LabRegistry } from '../../src/run/lab.ts';
import { offeredShown } from './predict.ts';

export interface LogAttempt {
  /** The user the registry refused; "" when nothing followed the anonymous request. */
  user: string;
  /** Whether the registry let a request of this attempt through. */
  ok: boolean;
}

/** containerd's attempts against `repository` in these log lines, in order. */
export function parseAttempts(log: string, repository: string): LogAttempt[] {
  const out: LogAttempt[] = [];
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

/**
 * The credentials offered, in the order they first appear: the kubelet retries a failed pull after a
 * back-off, and a retry repeats the same sequence.
 */
export function offeredFrom(attempts: LogAttempt[]): string[] {
  return [...new Set(attempts.map((a) => offeredShown(a.user)))];
}

/** The registry's log from now on: `read` parses what was written after this call. */
export async function registryLogSince(lab: LabRegistry): Promise<{ read(repository: string): Promise<LogAttempt[]> }> {
  const file = lab.registry.logFile;
  const offset = await stat(file).then(
    (s) => s.size,
    () => 0,
  );
  return {
    async read(repository) {
      const text = await readFile(file).catch(() => Buffer.alloc(0));
      return parseAttempts(text.subarray(offset).toString('utf8'), repository);
    },
  };
}
