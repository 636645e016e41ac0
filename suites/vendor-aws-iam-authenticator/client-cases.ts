// The cases about the plugin as kubectl's exec plugin: who kube-apiserver says
// the mapped user is, a v1 user, the expiry the plugin answers, and a profile
// without keys.
import { describeToken } from '../../src/model/aws-iam-authenticator.ts';
import { readExecRuns } from '../../src/plugin/vendors/exec-recording-wrapper.ts';
import { amzDateToMs } from '../../src/plugin/vendors/sigv4.ts';
import { caseOf, type Case } from '../../src/run/cases.ts';
import { judge } from '../../src/run/prediction.ts';
import { EXEC_V1, EXPIRY, MAPPED, NO_CREDENTIALS, WHOAMI } from './checks.ts';
import { answerOf, tokenOf, userInfoOf } from './observe.ts';
import { PROBE_PATH, USERS } from './plan.ts';
import {
  expectedToken,
  expiryAgrees,
  NO_CREDENTIALS_SAYS,
  predictExecV1,
  predictExpiry,
  predictNoCredentials,
  predictWhoami,
  sameIdentity,
  type NoCredentialsOutcome,
} from './predict.ts';
import { attemptEvidence, type Session } from './session.ts';

/** The mapped user's identity as kube-apiserver sees it (SelfSubjectReview), against the mapping. */
export const whoamiCase = (s: Session): Case =>
  caseOf(WHOAMI, async () => {
    const startedAt = new Date();
    const now = Date.now();
    const prediction = predictWhoami(expectedToken(s.lab, USERS.mapped, now, s.crafted), s.lab.setup(), now);
    const a = await s.attempt('mapped', ['auth', 'whoami', '-o', 'json']);
    const token = a.runs[0] ? tokenOf(a.runs[0]) : '';
    const user = userInfoOf(a.stdout);
    const observed = user
      ? { username: user.username, groups: user.groups }
      : { username: `(none: ${a.status ?? a.exitCode})`, groups: [] };
    return judge(WHOAMI, {
      prediction,
      observed,
      actor: 'kubectl auth whoami',
      startedAt,
      agree: sameIdentity,
      show: (v) => `${v.username} [${v.groups.join(', ')}]`,
      evidence: [
        {
          kind: 'data',
          label: 'SelfSubjectReview status.userInfo (extra as the authenticator set it)',
          data: user ?? a.stdout.slice(0, 2000),
        },
        ...attemptEvidence(s.lab, 'mapped', token, a),
      ],
    });
  });

/** A v1 user: the plugin must answer v1 (KUBERNETES_EXEC_INFO), and the token works the same. */
export const execV1Case = (s: Session): Case =>
  caseOf(EXEC_V1, async () => {
    const startedAt = new Date();
    // client-go sends KUBERNETES_EXEC_INFO in the version the kubeconfig names; the plugin echoes it.
    const configured = String(s.lab.execFor('mapped', { apiVersion: 'v1' }).apiVersion);
    const now = Date.now();
    const prediction = predictExecV1(
      configured,
      expectedToken(s.lab, USERS['mapped-v1'], now, s.crafted),
      s.lab.setup(),
      now,
    );
    const a = await s.attempt('mapped-v1', ['get', '--raw', PROBE_PATH]);
    const run = a.runs[0];
    const answered = run ? (answerOf(run).apiVersion ?? '(unparsable answer)') : '(the plugin did not run)';
    return judge(EXEC_V1, {
      prediction,
      observed: { answered, status: a.status ?? -1 },
      actor: 'aws-iam-authenticator token, then kube-apiserver',
      startedAt,
      show: (v) => `answer in ${v.answered}, HTTP ${v.status}`,
      evidence: attemptEvidence(s.lab, 'mapped-v1', run ? tokenOf(run) : '', a),
    });
  });

/** expirationTimestamp against X-Amz-Date: the plugin's code says 14 min after signing, inside STS's 15. */
export const expiryCase = (s: Session): Case =>
  caseOf(EXPIRY, async () => {
    const startedAt = new Date();
    const run = (await readExecRuns(s.lab.runsDir)).find((x) => x.exitCode === 0 && x.args.includes(s.lab.clusterId));
    if (!run) throw new Error(`no successful plugin run recorded for this cluster id (see ${MAPPED.id})`);
    const answer = answerOf(run);
    const token = describeToken(answer.token ?? '');
    const signedAt = ('amzDate' in token && token.amzDate ? amzDateToMs(token.amzDate) : undefined) ?? NaN;
    const expires = answer.expirationTimestamp ? Date.parse(answer.expirationTimestamp) : NaN;
    return judge(EXPIRY, {
      prediction: predictExpiry(),
      observed: Math.round((expires - signedAt) / 1000),
      actor: 'aws-iam-authenticator token',
      startedAt,
      agree: expiryAgrees,
      show: (v) =>
        Number.isFinite(v)
          ? `expirationTimestamp ${v}s after X-Amz-Date (the server refuses from 900s)`
          : 'no expirationTimestamp or X-Amz-Date',
      evidence: [
        {
          kind: 'data',
          label: "the plugin's answer (token reduced to what it says)",
          data: {
            apiVersion: answer.apiVersion,
            kind: answer.kind,
            expirationTimestamp: answer.expirationTimestamp,
            tokenContents: token,
          },
        },
      ],
    });
  });

/** A profile without keys: the plugin's own failure path, as kubectl meets it. */
export const noCredentialsCase = (s: Session): Case =>
  caseOf(NO_CREDENTIALS, async () => {
    const startedAt = new Date();
    const prediction = predictNoCredentials(s.lab.imdsEndpoint);
    const imdsBefore = s.lab.fake.requests({ service: 'other' }).length;
    const a = await s.attempt('no-credentials', ['get', '--raw', PROBE_PATH]);
    const imds = s.lab.fake
      .requests({ service: 'other' })
      .slice(imdsBefore)
      .filter((r) => r.path.startsWith('/latest/'));
    const run = a.runs[0];
    const observed: NoCredentialsOutcome = {
      pluginFailed: run !== undefined && run.exitCode !== 0,
      stderrSays: run?.stderr.includes(NO_CREDENTIALS_SAYS)
        ? NO_CREDENTIALS_SAYS
        : (run?.stderr.trim().split('\n')[0] ?? '(the plugin did not run)').slice(0, 200),
      apiServerReached: a.status !== undefined,
      imdsAskedOnLoopback: imds.length > 0,
    };
    return judge(NO_CREDENTIALS, {
      prediction,
      observed,
      actor: 'aws-iam-authenticator token under kubectl',
      startedAt,
      show: (v) =>
        `${v.pluginFailed ? 'plugin failed' : 'plugin succeeded'} ("${v.stderrSays}"), ` +
        `${v.apiServerReached ? 'a request reached kube-apiserver' : 'no request sent'}, ${v.imdsAskedOnLoopback ? 'IMDS asked on loopback' : 'IMDS not asked'}`,
      evidence: [
        ...attemptEvidence(s.lab, 'no-credentials', '', a),
        {
          kind: 'data',
          label: "IMDS requests caught by the fake's catch-all",
          data: imds.map((r) => ({ method: r.method, path: r.path, status: r.status })),
        },
      ],
    });
  });
