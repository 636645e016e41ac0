// What the vendor-aws-iam-authenticator cases read from what happened: for a
// 401, who refused (the fake STS's request log) and why (the authenticator's
// own log line); for a 200, who `kubectl auth whoami` says the user is. Pure:
// the recorded attempt comes in. Reading kubectl's output and a plugin's
// answer is shared (src/clients/kubectl-output.ts, exec-recording-wrapper.ts).
import type { TokenReviewVerdict } from '../../src/model/aws-iam-authenticator.ts';
import { userInfoOf, type FakeAwsRequest, type RecordedExecRun } from '../../src/run/kit.ts';

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
