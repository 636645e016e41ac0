// What a kubectl run said, read from its output: the HTTP status of its last
// request (-v=6) and its error line, and who `kubectl auth whoami` says the
// user is. Pure: the output comes in.

/** kubectl -v=6: the last HTTP status it logged, and its last `error:` line. */
export function kubectlOutcome(stderr: string): { status?: number; kubectlError?: string } {
  const statuses = [...stderr.matchAll(/status="(\d{3})[^"]*"|\s(\d{3}) [A-Za-z ]+ in \d+ milliseconds/g)].map((m) =>
    Number(m[1] ?? m[2]),
  );
  const lastError = stderr
    .trim()
    .split('\n')
    .filter((l) => /^error:/.test(l))
    .pop();
  return {
    ...(statuses.length ? { status: statuses[statuses.length - 1] } : {}),
    ...(lastError ? { kubectlError: lastError } : {}),
  };
}

export interface UserInfo {
  username: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** SelfSubjectReview status.userInfo, as `kubectl auth whoami -o json` prints it. */
export function userInfoOf(stdout: string): UserInfo | undefined {
  try {
    type Review = {
      status?: { userInfo?: { username?: string; groups?: string[]; extra?: Record<string, string[]> } };
    };
    const u = (JSON.parse(stdout) as Review).status?.userInfo;
    return u?.username
      ? { username: u.username, groups: u.groups ?? [], ...(u.extra ? { extra: u.extra } : {}) }
      : undefined;
  } catch {
    return undefined;
  }
}
