// What the vendor-aws-iam-authenticator cases read from what happened:
// kubectl's status (its -v=6 log), the plugin's answer, `kubectl auth whoami`,
// and for a 401 who refused (the fake STS's request log) and why (the
// authenticator's own log line). Pure: the recorded attempt comes in.
import type { TokenReviewVerdict } from '../../src/model/aws-iam-authenticator.ts';
import type { RecordedExecRun } from '../../src/plugin/vendors/exec-recording-wrapper.ts';
import type { FakeAwsRequest } from '../../src/plugin/vendors/fake-aws.ts';

/** What one kubectl call did, with what happened meanwhile on the plugin's and the server's side. */
export interface Attempt {
  status?: number;
  exitCode: number;
  kubectlError?: string;
  stdout: string;
  runs: RecordedExecRun[];
  sts: FakeAwsRequest[];
  serverLines: string[];
}

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

export interface PluginAnswer {
  apiVersion?: string;
  kind?: string;
  expirationTimestamp?: string;
  token?: string;
}

export function answerOf(r: RecordedExecRun): PluginAnswer {
  try {
    const j = JSON.parse(r.stdout) as {
      apiVersion?: string;
      kind?: string;
      status?: { expirationTimestamp?: string; token?: string };
    };
    return {
      ...(j.apiVersion ? { apiVersion: j.apiVersion } : {}),
      ...(j.kind ? { kind: j.kind } : {}),
      ...(j.status?.expirationTimestamp ? { expirationTimestamp: j.status.expirationTimestamp } : {}),
      ...(j.status?.token ? { token: j.status.token } : {}),
    };
  } catch {
    return {};
  }
}

export const tokenOf = (r: RecordedExecRun): string => answerOf(r).token ?? '';

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

/** The observed verdict: kubectl's status; on 401 who refused (fake STS log) and why (the server's log line). */
export function observedVerdict(a: Attempt, whoami?: Attempt): TokenReviewVerdict {
  if (a.status === 200) {
    const user = whoami ? userInfoOf(whoami.stdout) : undefined;
    return { status: 200, username: user?.username ?? '(whoami failed)', groups: user?.groups ?? [] };
  }
  if (a.status !== 401) {
    throw new Error(
      `kubectl got ${a.status ?? 'no HTTP status'} (exit ${a.exitCode}${a.kubectlError ? `: ${a.kubectlError}` : ''}), neither 200 nor 401`,
    );
  }
  const calls = a.sts.filter((r) => r.operation === 'GetCallerIdentity');
  const denied = a.serverLines
    .map((l) => /msg="access denied".*?error="((?:[^"\\]|\\.)*)"/.exec(l)?.[1])
    .find((x) => x !== undefined);
  const reason = denied?.replace(/\\"/g, '"') ?? '(no "access denied" line in the authenticator\'s log)';
  const refusedBy = calls.length === 0 ? 'authenticator' : calls.some((r) => r.status !== 200) ? 'sts' : 'mapping';
  return { status: 401, refusedBy, reason };
}
