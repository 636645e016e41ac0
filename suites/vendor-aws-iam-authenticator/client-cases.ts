// The cases about a token command as kubectl's exec plugin: who kube-apiserver
// says the mapped user is, a v1 user, the expiry the command answers, its token
// against credprov's presigner, and a profile without keys. Each runs once per
// token command (the Go plugin, then awscli's `aws eks get-token`).
import { describeToken } from '../../src/model/aws-iam-authenticator.ts';
import { TOKEN_COMMAND_MODELS } from '../../src/model/eks-token-commands.ts';
import { amzDateToMs } from '../../src/api/aws/sigv4.ts';
import { PROBE_PATH, USERS, type TokenCommandPlan } from './plan.ts';
import {
  expectedToken,
  expiryAgrees,
  predictExecV1,
  predictExpiry,
  predictNoCredentials,
  predictTokenBytes,
  predictWhoami,
  sameIdentity,
  tokenShape,
  type ExecUserPlan,
  type NoCredentialsOutcome,
  type TokenShape,
} from './predict.ts';
import { attemptEvidence, type Session } from './session.ts';
import {
  answerOf,
  caseOf,
  judge,
  readExecRuns,
  tokenOf,
  userInfoOf,
  type Case,
  type RecordedExecRun,
} from '../../src/run/kit.ts';

const shown = (c: TokenCommandPlan) => TOKEN_COMMAND_MODELS[c.via].shown;

/** The mapped user's identity as kube-apiserver sees it (SelfSubjectReview), against the mapping. */
export const whoamiCase = (s: Session, c: TokenCommandPlan): Case =>
  caseOf(c.checks.whoami, async (ctx) => {
    const now = ctx.clock.now();
    const prediction = predictWhoami(expectedToken(s.lab, USERS[c.users.mapped], now, s.crafted), s.lab.setup(), now);
    const a = await s.attempt(c.users.mapped, ['auth', 'whoami', '-o', 'json']);
    const token = a.runs[0] ? tokenOf(a.runs[0]) : '';
    const user = userInfoOf(a.stdout);
    const observed = user
      ? { username: user.username, groups: user.groups }
      : { username: `(none: ${a.status ?? a.exitCode})`, groups: [] };
    return judge(c.checks.whoami, {
      prediction,
      observed,
      actor: 'kubectl auth whoami',
      agree: sameIdentity,
      show: (v) => `${v.username} [${v.groups.join(', ')}]`,
      evidence: [
        {
          kind: 'data',
          label: 'SelfSubjectReview status.userInfo (extra as the authenticator set it)',
          data: user ?? a.stdout.slice(0, 2000),
        },
        ...attemptEvidence(s.lab, c.users.mapped, token, a),
      ],
    });
  });

/** A v1 user: the command must answer v1 (KUBERNETES_EXEC_INFO), and the token works the same. */
export const execV1Case = (s: Session, c: TokenCommandPlan): Case =>
  caseOf(c.checks.execV1, async (ctx) => {
    // client-go sends KUBERNETES_EXEC_INFO in the version the kubeconfig names; the command echoes it.
    const configured = String(s.lab.execFor('mapped', { apiVersion: 'v1', via: c.via }).apiVersion);
    const now = ctx.clock.now();
    const prediction = predictExecV1(
      c.via,
      configured,
      expectedToken(s.lab, USERS[c.users.mappedV1], now, s.crafted),
      s.lab.setup(),
      now,
    );
    const a = await s.attempt(c.users.mappedV1, ['get', '--raw', PROBE_PATH]);
    const run = a.runs[0];
    const answered = run ? (answerOf(run).apiVersion ?? '(unparsable answer)') : '(the plugin did not run)';
    return judge(c.checks.execV1, {
      prediction,
      observed: { answered, status: a.status ?? -1 },
      actor: `${shown(c)}, then kube-apiserver`,
      show: (v) => `answer in ${v.answered}, HTTP ${v.status}`,
      evidence: attemptEvidence(s.lab, c.users.mappedV1, run ? tokenOf(run) : '', a),
    });
  });

/** The newest successful run of the command for this lab's own cluster id (made by the mapped cases). */
async function lastGoodRun(s: Session, c: TokenCommandPlan): Promise<RecordedExecRun> {
  const runs = await readExecRuns(s.lab.runsDirOf(c.via));
  const run = runs.reverse().find((x) => x.exitCode === 0 && x.args.at(-1) === s.lab.clusterId);
  if (!run)
    throw new Error(`no successful run of ${shown(c)} recorded for this cluster id (see ${c.checks.mapped.id})`);
  return run;
}

const signedAtOf = (token: string): number => {
  const d = describeToken(token);
  return ('amzDate' in d && d.amzDate ? amzDateToMs(d.amzDate) : undefined) ?? NaN;
};

/** expirationTimestamp against X-Amz-Date: 14 min after signing, inside STS's 15. */
export const expiryCase = (s: Session, c: TokenCommandPlan): Case =>
  caseOf(c.checks.expiry, async () => {
    const answer = answerOf(await lastGoodRun(s, c));
    const signedAt = signedAtOf(answer.token ?? '');
    const expires = answer.expirationTimestamp ? Date.parse(answer.expirationTimestamp) : NaN;
    return judge(c.checks.expiry, {
      prediction: predictExpiry(c.via),
      observed: Math.round((expires - signedAt) / 1000),
      actor: shown(c),
      agree: expiryAgrees,
      show: (v) =>
        Number.isFinite(v)
          ? `expirationTimestamp ${v}s after X-Amz-Date (the server refuses from 900s)`
          : 'no expirationTimestamp or X-Amz-Date',
      evidence: [
        {
          kind: 'data',
          label: "the command's answer (token reduced to what it says)",
          data: {
            apiVersion: answer.apiVersion,
            kind: answer.kind,
            expirationTimestamp: answer.expirationTimestamp,
            tokenContents: describeToken(answer.token ?? ''),
          },
        },
      ],
    });
  });

/** The token itself against credprov's presigner at the same X-Amz-Date: where Go and Python presigners could part. */
export const tokenBytesCase = (s: Session, c: TokenCommandPlan): Case =>
  caseOf(c.checks.tokenBytes, async () => {
    const token = tokenOf(await lastGoodRun(s, c));
    const user = USERS[c.users.mapped] as ExecUserPlan;
    return judge(c.checks.tokenBytes, {
      prediction: predictTokenBytes(s.lab, user, signedAtOf(token)),
      observed: tokenShape(token),
      actor: shown(c),
      show: (v: TokenShape) =>
        'malformed' in v
          ? `malformed (${v.malformed})`
          : `${v.url} ${v.queryOrder.join('&')} signed [${v.signedHeaders.join(';')}], fingerprint ${v.fingerprint}`,
    });
  });

/** A profile without keys: the command's own failure path, as kubectl meets it. */
export const noCredentialsCase = (s: Session, c: TokenCommandPlan): Case =>
  caseOf(c.checks.noCredentials, async () => {
    const prediction = predictNoCredentials(c.via, s.lab.imdsEndpoint);
    const says = TOKEN_COMMAND_MODELS[c.via].noCredentials.says;
    const imdsBefore = s.lab.fake.requests({ service: 'other' }).length;
    const a = await s.attempt(c.users.noCredentials, ['get', '--raw', PROBE_PATH]);
    const imds = s.lab.fake
      .requests({ service: 'other' })
      .slice(imdsBefore)
      .filter((r) => r.path.startsWith('/latest/'));
    const run = a.runs[0];
    const observed: NoCredentialsOutcome = {
      pluginExitCode: run?.exitCode ?? null,
      stderrSays: run?.stderr.includes(says)
        ? says
        : (run?.stderr.trim().split('\n')[0] ?? '(the plugin did not run)').slice(0, 200),
      apiServerReached: a.status !== undefined,
      imdsAskedOnLoopback: imds.length > 0,
    };
    return judge(c.checks.noCredentials, {
      prediction,
      observed,
      actor: `${shown(c)} under kubectl`,
      show: (v) =>
        `${v.pluginExitCode === null ? 'plugin did not run' : `plugin exit ${v.pluginExitCode}`} ("${v.stderrSays}"), ` +
        `${v.apiServerReached ? 'a request reached kube-apiserver' : 'no request sent'}, ${v.imdsAskedOnLoopback ? 'IMDS asked on loopback' : 'IMDS not asked'}`,
      evidence: [
        ...attemptEvidence(s.lab, c.users.noCredentials, '', a),
        {
          kind: 'data',
          label: "IMDS requests caught by the fake's catch-all",
          data: imds.map((r) => ({ method: r.method, path: r.path, status: r.status })),
        },
      ],
    });
  });
