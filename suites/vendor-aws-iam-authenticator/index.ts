// The vendor-aws-iam-authenticator suite: the real aws-iam-authenticator
// (kubernetes-sigs, built unmodified from the Go module proxy) on both sides
// of a live API server:
// - the client side: kubeconfig users exec `aws-iam-authenticator token -i <id>`
//   (behind a recording wrapper) with keys from a shared credentials profile;
//   real kubectl sends what it prints;
// - the server side: `aws-iam-authenticator server` is kube-apiserver's token
//   webhook (the webhook kubeconfig it writes is the environment's
//   apiserver.tokenWebhookConfigFile), with a static mapUsers mapping;
// - STS is faked on https://sts.<region>.amazonaws.com:443 at a loopback address
//   (src/plugin/vendors/iam-authenticator-lab.ts): SigV4 checked against the keys
//   it issued, 15-minute window after X-Amz-Date, account/ARN/user id answered.
//
// Every case first predicts the API server's answer for the token at hand from
// credprov's model of the authenticator + STS (src/model/aws-iam-authenticator.ts),
// then runs kubectl and compares: the HTTP status kubectl got, who refused (the
// authenticator before calling STS, STS, or the mapping: told apart by the fake
// STS's request log) and why (the authenticator's own log line).
import { mkdtemp, readFile, rm, copyFile, stat, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import { parse } from 'yaml';
import { apply, kubectl, type KubeTarget } from '../../src/cluster/kubectl.ts';
import { cacheDir } from '../../src/core/paths.ts';
import { errorMessage } from '../../src/core/errors.ts';
import { describeToken, PLUGIN_EXPIRY_AFTER_SIGNING_MS, predictTokenReview, showVerdict, type TokenReviewPrediction, type TokenReviewVerdict } from '../../src/model/aws-iam-authenticator.ts';
import { IAM_AUTHENTICATOR_SOURCE, IAM_AUTHENTICATOR_VERSION } from '../../src/plugin/vendors/aws-iam-authenticator.ts';
import { readExecRuns, type RecordedExecRun } from '../../src/plugin/vendors/exec-recording-wrapper.ts';
import type { FakeAwsRequest } from '../../src/plugin/vendors/fake-aws.ts';
import { startIamAuthenticatorLab, type IamAuthenticatorLab, type IamProfile } from '../../src/plugin/vendors/iam-authenticator-lab.ts';
import { amzDateToMs } from '../../src/plugin/vendors/sigv4.ts';
import type { Check, CheckResult, Evidence } from '../../src/report/model.ts';
import { skipped } from '../../src/report/checks.ts';
import { judge, type Prediction } from '../../src/run/prediction.ts';
import type { PreparedSuite, Suite, SuiteRun, SuiteSetup } from '../../src/run/suite.ts';
import { CRAFTED_CONTROL, EXEC_V1, EXPIRED, EXPIRY, MAPPED, NO_CREDENTIALS, OTHER_CLUSTER, STS_CLOCK, UNKNOWN_KEY, UNMAPPED, UNSIGNED_ID, VENDOR_IAM_CHECKS, WHOAMI, WRONG_SECRET } from './checks.ts';

const MODEL = 'authenticator + STS model (src/model/aws-iam-authenticator.ts)';
const PLUGIN_MODEL = `${IAM_AUTHENTICATOR_SOURCE} (GetWithSTS, FormatJSON)`;
/** A request every mapped user may make once RBAC gives its group the view role. */
const PROBE_PATH = '/api/v1/namespaces/default/pods';
/** How far the STS clock jumps for IAM-STS-WINDOW-401: past the 15-minute window, short of anything else. */
const STS_SKEW_MS = 16 * 60_000;

export const vendorAwsIamAuthenticatorSuite: Suite = {
  name: 'vendor-aws-iam-authenticator',
  summary: 'the real aws-iam-authenticator (kubernetes-sigs, unmodified) as kubectl\'s exec plugin and as kube-apiserver\'s token webhook, against fake STS on loopback: mapped user 200 and whoami, v1 and v1beta1, expiry, and the 401s (unknown key, wrong secret, unmapped, other cluster id, unsigned cluster id, expired, STS window)',
  checks: VENDOR_IAM_CHECKS,
  needsBuild: `aws-iam-authenticator ${IAM_AUTHENTICATOR_VERSION} from the Go module proxy (sigs.k8s.io/aws-iam-authenticator; built into <cache>/plugins on first use)`,
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    // The lab holds credentials files and live tokens: a temp dir, not the (kept) artifacts dir.
    const dir = await mkdtemp(join(tmpdir(), 'credprov-iam-'));
    let lab: IamAuthenticatorLab | undefined;
    const cleanup = async () => {
      const l = lab;
      lab = undefined;
      if (l) {
        await l.stop();
        // The server's log and the fake STS's requests hold no secret; keep them as evidence.
        for (const f of [l.serverLog, join(dir, 'fake-sts-requests.jsonl')]) await copyFile(f, join(ctx.artifactsDir, f === l.serverLog ? 'aws-iam-authenticator-server.log' : 'fake-sts-requests.jsonl')).catch(() => {});
      }
      await rm(dir, { recursive: true, force: true });
    };
    try {
      // The lab builds the plugin on first use (minutes with cold Go caches).
      lab = await startIamAuthenticatorLab({ dir, cacheDir: cacheDir(ctx.processEnv), progress: ctx.progress, log: ctx.log });
      ctx.redactor.add(...lab.secrets);
      const l = lab;
      return {
        spec: { apiserver: { tokenWebhookConfigFile: lab.webhookKubeconfig } },
        run: (run) => runIam(run, l, dir),
        cleanup,
      };
    } catch (err) {
      await cleanup();
      throw err;
    }
  },
};

/** What one kubectl call did, with what happened meanwhile on the plugin's and the server's side. */
interface Attempt {
  status?: number;
  exitCode: number;
  kubectlError?: string;
  runs: RecordedExecRun[];
  sts: FakeAwsRequest[];
  serverLines: string[];
}

async function runIam(ctx: SuiteRun, lab: IamAuthenticatorLab, dir: string): Promise<CheckResult[]> {
  const env = ctx.environment;
  if (env.spec.apiserver.tokenWebhookConfigFile !== lab.webhookKubeconfig) {
    const why = `environment '${env.name}' (provider ${env.provider}) does not run kube-apiserver with the lab's token webhook; the local provider does`;
    return VENDOR_IAM_CHECKS.map((c) => skipped(c, why));
  }
  const id = randomBytes(3).toString('hex');
  const group = lab.mappings[0]!.groups[0]!;
  const admin: KubeTarget = { kubectl: env.kubectl, kubeconfig: env.kubeconfig };
  const binding = `credprov-iam-view-${id}`;
  await apply(admin, [{
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: binding },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
  }]);
  // The RBAC authorizer sees a new binding through its informer, a moment later: a 403 now would not be the plugin's.
  await waitFor(`ClusterRoleBinding ${binding} to take effect`, async () => (await kubectl(admin, ['auth', 'can-i', 'list', 'pods', '-n', 'default', '--as', lab.mappings[0]!.username, '--as-group', group]).catch(() => 'no')).trim() === 'yes', 30_000);
  // The cluster as the admin kubeconfig names it; users that exec the plugin, or carry a crafted token.
  const cluster = (parse(await readFile(env.kubeconfig, 'utf8')) as { clusters: Array<{ cluster: { server: string; 'certificate-authority'?: string; 'certificate-authority-data'?: string } }> }).clusters[0]!.cluster;
  const now = Date.now();
  const crafted = {
    control: lab.presignToken({ user: lab.users.mapped, signedAtMs: now }),
    expired: lab.presignToken({ user: lab.users.mapped, signedAtMs: now - STS_SKEW_MS }),
    unsignedId: lab.presignToken({ user: lab.users.mapped, signedAtMs: now, clusterId: null }),
  };
  ctx.redactor.add(...Object.values(crafted));
  const otherCluster = `${lab.clusterId}-other`;
  const execUser = (profile: IamProfile, o?: Parameters<IamAuthenticatorLab['execFor']>[1]) => ({ exec: lab.execFor(profile, o) });
  const kubeconfig = await lab.writeKubeconfig(join(dir, 'users.kubeconfig'), {
    server: cluster.server, ...(cluster['certificate-authority'] ? { caFile: cluster['certificate-authority'] } : {}), ...(cluster['certificate-authority-data'] ? { caData: cluster['certificate-authority-data'] } : {}),
  }, {
    mapped: execUser('mapped'), 'mapped-v1': execUser('mapped', { apiVersion: 'v1' }), unmapped: execUser('unmapped'),
    'unknown-key': execUser('unknown-key'), 'wrong-secret': execUser('wrong-secret'), 'no-credentials': execUser('no-credentials'), 'other-cluster': execUser('mapped', { clusterId: otherCluster }),
    'crafted-control': { token: crafted.control }, 'crafted-expired': { token: crafted.expired }, 'crafted-unsigned-id': { token: crafted.unsignedId },
  });

  const results: CheckResult[] = [];
  try {
    const attempt = async (user: string, args: string[]): Promise<Attempt & { stdout: string }> => {
      const runsBefore = (await readExecRuns(lab.runsDir)).length;
      const stsBefore = lab.fake.requests().length;
      const logBefore = await stat(lab.serverLog).then((s) => s.size, () => 0);
      // A clean environment: no ~/.aws, ~/.kube or AWS_* of the caller's; kuberc off.
      const r = await execa(env.kubectl, ['--kubeconfig', kubeconfig, '--user', user, ...args, '-v=6'], { reject: false, timeout: 60_000, extendEnv: false, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, KUBERC: 'off' } });
      const runs = (await readExecRuns(lab.runsDir)).slice(runsBefore);
      for (const run of runs) ctx.redactor.add(tokenOf(run));
      const statuses = [...String(r.stderr).matchAll(/status="(\d{3})[^"]*"|\s(\d{3}) [A-Za-z ]+ in \d+ milliseconds/g)].map((m) => Number(m[1] ?? m[2]));
      const lastLine = String(r.stderr).trim().split('\n').filter((l) => /^error:/.test(l)).pop();
      return {
        exitCode: r.exitCode ?? -1, stdout: String(r.stdout), runs, sts: lab.fake.requests().slice(stsBefore),
        serverLines: await readFrom(lab.serverLog, logBefore),
        ...(statuses.length ? { status: statuses[statuses.length - 1] } : {}), ...(lastLine ? { kubectlError: lastLine } : {}),
      };
    };

    /**
     * One token case: predict, run kubectl, compare status + who refused + why (or the user, for a 200).
     * A plugin user's token does not exist before kubectl runs the plugin, so the prediction is made
     * for the token the plugin will print: credprov's presigner with that profile's keys and cluster id,
     * now (it reproduces the plugin's tokens byte for byte: sigv4.test.ts).
     */
    const tokenCase = async (check: Check, user: string, token: { crafted: string } | { profile: IamProfile; clusterId?: string }, o: { stsSkewMs?: number } = {}) => {
      const startedAt = new Date();
      const expected = 'crafted' in token ? token.crafted : expectedToken(lab, token.profile, token.clusterId);
      const prediction = predictTokenReview(expected, lab.setup(), Date.now(), Date.now() + (o.stsSkewMs ?? 0));
      const a = await attempt(user, ['get', '--raw', PROBE_PATH]);
      const used = a.runs.length ? tokenOf(a.runs[0]!) : expected;
      const whoami = a.status === 200 ? await attempt(user, ['auth', 'whoami', '-o', 'json']) : undefined;
      return judge(check, {
        prediction: asPrediction(prediction), observed: observedVerdict(a, whoami), actor: 'kube-apiserver with aws-iam-authenticator as its webhook', startedAt,
        agree: agreeVerdict, show: showVerdict,
        evidence: [...attemptEvidence(lab, user, used, a, whoami), { kind: 'data', label: 'the token predicted for (credprov\'s presigner, same keys, cluster id and time)', data: describeToken(expected) }],
      });
    };
    const guard = async (checks: Check[], body: () => Promise<CheckResult[]>) => {
      try {
        results.push(...(await body()));
      } catch (err) {
        results.push(...checks.map((c) => harnessFailure(c, err)));
      }
    };

    await guard([MAPPED], async () => [await tokenCase(MAPPED, 'mapped', { profile: 'mapped' })]);
    await guard([WHOAMI], async () => [await whoamiCase(lab, (u, a) => attempt(u, a))]);
    await guard([EXEC_V1], async () => [await execV1Case(lab, (u, a) => attempt(u, a))]);
    await guard([EXPIRY], async () => [expiryCase((await readExecRuns(lab.runsDir)).find((x) => x.exitCode === 0 && x.args.includes(lab.clusterId)))]);
    await guard([UNKNOWN_KEY], async () => [await tokenCase(UNKNOWN_KEY, 'unknown-key', { profile: 'unknown-key' })]);
    await guard([WRONG_SECRET], async () => [await tokenCase(WRONG_SECRET, 'wrong-secret', { profile: 'wrong-secret' })]);
    await guard([UNMAPPED], async () => [await tokenCase(UNMAPPED, 'unmapped', { profile: 'unmapped' })]);
    await guard([OTHER_CLUSTER], async () => [await tokenCase(OTHER_CLUSTER, 'other-cluster', { profile: 'mapped', clusterId: otherCluster })]);
    await guard([CRAFTED_CONTROL], async () => [await tokenCase(CRAFTED_CONTROL, 'crafted-control', { crafted: crafted.control })]);
    await guard([UNSIGNED_ID], async () => [await tokenCase(UNSIGNED_ID, 'crafted-unsigned-id', { crafted: crafted.unsignedId })]);
    await guard([EXPIRED], async () => [await tokenCase(EXPIRED, 'crafted-expired', { crafted: crafted.expired })]);
    await guard([STS_CLOCK], async () => {
      // A presigned token is the same string for the same key, cluster id and second, and kube-apiserver answers a token
      // it accepted in the last 10 s from its success cache, unreviewed: on a warm environment the plugin's token here
      // could equal the crafted control token (signed at the suite's start) and get 200 from the cache. A new second
      // makes it a token the API server has never seen, so STS is asked.
      await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
      lab.setStsClockSkew(STS_SKEW_MS);
      try {
        return [await tokenCase(STS_CLOCK, 'mapped', { profile: 'mapped' }, { stsSkewMs: STS_SKEW_MS })];
      } finally {
        lab.setStsClockSkew(0);
      }
    });
    await guard([NO_CREDENTIALS], async () => [await noCredentialsCase(lab, (u, a) => attempt(u, a))]);
  } finally {
    await kubectl(admin, ['delete', 'clusterrolebinding', binding, '--ignore-not-found']).catch((e: unknown) => ctx.log.warn(`removing ${binding}: ${errorMessage(e)}`));
  }
  return results;
}

/** The mapped user's identity as kube-apiserver sees it (SelfSubjectReview), against the mapping. */
async function whoamiCase(lab: IamAuthenticatorLab, attempt: (user: string, args: string[]) => Promise<Attempt & { stdout: string }>): Promise<CheckResult> {
  const startedAt = new Date();
  const p = predictTokenReview(expectedToken(lab, 'mapped'), lab.setup(), Date.now());
  const a = await attempt('mapped', ['auth', 'whoami', '-o', 'json']);
  const token = a.runs[0] ? tokenOf(a.runs[0]) : '';
  const user = userInfoOf(a.stdout);
  const expected = p.verdict.status === 200 ? { username: p.verdict.username, groups: p.verdict.groups } : { username: '(none: 401)', groups: [] };
  const observed = user ? { username: user.username, groups: user.groups } : { username: `(none: ${a.status ?? a.exitCode})`, groups: [] };
  return judge(WHOAMI, {
    prediction: { value: expected, model: MODEL, because: p.because }, observed, actor: 'kubectl auth whoami', startedAt,
    agree: (x, y) => x.username === y.username && [...x.groups].sort().join() === [...y.groups].sort().join(),
    show: (v) => `${v.username} [${v.groups.join(', ')}]`,
    evidence: [{ kind: 'data', label: 'SelfSubjectReview status.userInfo (extra as the authenticator set it)', data: user ?? a.stdout.slice(0, 2000) }, ...attemptEvidence(lab, 'mapped', token, a)],
  });
}

/** A v1 user: the plugin must answer v1 (KUBERNETES_EXEC_INFO), and the token works the same. */
async function execV1Case(lab: IamAuthenticatorLab, attempt: (user: string, args: string[]) => Promise<Attempt & { stdout: string }>): Promise<CheckResult> {
  const startedAt = new Date();
  // client-go sends KUBERNETES_EXEC_INFO in the version the kubeconfig names; the plugin echoes it.
  const configured = String(lab.execFor('mapped', { apiVersion: 'v1' }).apiVersion);
  const p = predictTokenReview(expectedToken(lab, 'mapped'), lab.setup(), Date.now());
  const a = await attempt('mapped-v1', ['get', '--raw', PROBE_PATH]);
  const run = a.runs[0];
  const token = run ? tokenOf(run) : '';
  const answered = run ? answerOf(run).apiVersion ?? '(unparsable answer)' : '(the plugin did not run)';
  return judge(EXEC_V1, {
    prediction: { value: { answered: configured, status: p.verdict.status }, model: `${PLUGIN_MODEL} + ${MODEL}`, because: `client-go sends KUBERNETES_EXEC_INFO as ${configured} and FormatJSON answers in its apiVersion; ${p.because}` },
    observed: { answered, status: a.status ?? -1 }, actor: 'aws-iam-authenticator token, then kube-apiserver', startedAt,
    show: (v) => `answer in ${v.answered}, HTTP ${v.status}`,
    evidence: attemptEvidence(lab, 'mapped-v1', token, a),
  });
}

/** A profile without keys: the plugin's own failure path, as kubectl meets it. */
async function noCredentialsCase(lab: IamAuthenticatorLab, attempt: (user: string, args: string[]) => Promise<Attempt & { stdout: string }>): Promise<CheckResult> {
  const startedAt = new Date();
  const says = 'could not get token';
  type Outcome = { pluginFailed: boolean; stderrSays: string; apiServerReached: boolean; imdsAskedOnLoopback: boolean };
  const prediction: Prediction<Outcome> = {
    value: { pluginFailed: true, stderrSays: says, apiServerReached: false, imdsAskedOnLoopback: true },
    model: PLUGIN_MODEL,
    because: `no key in the profile or env, so the SDK's chain ends at IMDS, which the token command forces on (its endpoint is the lab's catch-all, ${lab.imdsEndpoint}); GetWithOptions prints "${says}: …" and exits 1; client-go sends no request without a credential`,
  };
  const imdsBefore = lab.fake.requests({ service: 'other' }).length;
  const a = await attempt('no-credentials', ['get', '--raw', PROBE_PATH]);
  const imds = lab.fake.requests({ service: 'other' }).slice(imdsBefore).filter((r) => r.path.startsWith('/latest/'));
  const run = a.runs[0];
  const observed: Outcome = {
    pluginFailed: run !== undefined && run.exitCode !== 0,
    stderrSays: run?.stderr.includes(says) ? says : (run?.stderr.trim().split('\n')[0] ?? '(the plugin did not run)').slice(0, 200),
    apiServerReached: a.status !== undefined,
    imdsAskedOnLoopback: imds.length > 0,
  };
  return judge(NO_CREDENTIALS, {
    prediction, observed, actor: 'aws-iam-authenticator token under kubectl', startedAt,
    show: (v) => `${v.pluginFailed ? 'plugin failed' : 'plugin succeeded'} ("${v.stderrSays}"), ${v.apiServerReached ? 'a request reached kube-apiserver' : 'no request sent'}, ${v.imdsAskedOnLoopback ? 'IMDS asked on loopback' : 'IMDS not asked'}`,
    evidence: [...attemptEvidence(lab, 'no-credentials', '', a), { kind: 'data', label: 'IMDS requests caught by the fake\'s catch-all', data: imds.map((r) => ({ method: r.method, path: r.path, status: r.status })) }],
  });
}

/** expirationTimestamp against X-Amz-Date: the plugin's code says 14 min after signing, inside STS's 15. */
function expiryCase(run: RecordedExecRun | undefined): CheckResult {
  const startedAt = new Date();
  if (!run) throw new Error('no successful plugin run recorded for this cluster id (see IAM-MAPPED-USER-200)');
  const answer = answerOf(run);
  const token = describeToken(answer.token ?? '');
  const signedAt = ('amzDate' in token && token.amzDate ? amzDateToMs(token.amzDate) : undefined) ?? NaN;
  const expires = answer.expirationTimestamp ? Date.parse(answer.expirationTimestamp) : NaN;
  const afterS = Math.round((expires - signedAt) / 1000);
  const predicted = PLUGIN_EXPIRY_AFTER_SIGNING_MS / 1000;
  const prediction: Prediction<number> = { value: predicted, model: PLUGIN_MODEL, because: `tokenExpiration = now + 15m - 1m for a URL presigned at now (whole seconds on both sides, so ${predicted}s or one more)` };
  return judge(EXPIRY, {
    prediction, observed: afterS, actor: 'aws-iam-authenticator token', startedAt,
    // The two "now"s are read microseconds apart; truncation to seconds can part them by one.
    agree: (p, o) => o === p || o === p + 1,
    show: (v) => (Number.isFinite(v) ? `expirationTimestamp ${v}s after X-Amz-Date (the server refuses from 900s)` : 'no expirationTimestamp or X-Amz-Date'),
    evidence: [{ kind: 'data', label: 'the plugin\'s answer (token reduced to what it says)', data: { apiVersion: answer.apiVersion, kind: answer.kind, expirationTimestamp: answer.expirationTimestamp, tokenContents: token } }],
  });
}

/** The token the plugin will print for `profile` now: credprov's presigner, same keys, cluster id and region. */
function expectedToken(lab: IamAuthenticatorLab, profile: IamProfile, clusterId?: string): string {
  const keys = lab.keysOf(profile);
  if (!keys) throw new Error(`profile ${profile} holds no keys to predict a token from`);
  return lab.presignToken({ user: keys, signedAtMs: Date.now(), ...(clusterId ? { clusterId } : {}) });
}

function asPrediction(p: TokenReviewPrediction): Prediction<TokenReviewVerdict> {
  return { value: p.verdict, model: MODEL, because: p.because };
}

/** The observed verdict: kubectl's status; on 401 who refused (fake STS log) and why (the server's log line). */
function observedVerdict(a: Attempt, whoami?: Attempt & { stdout: string }): TokenReviewVerdict {
  if (a.status === 200) {
    const user = whoami ? userInfoOf(whoami.stdout) : undefined;
    return { status: 200, username: user?.username ?? '(whoami failed)', groups: user?.groups ?? [] };
  }
  if (a.status !== 401) throw new Error(`kubectl got ${a.status ?? 'no HTTP status'} (exit ${a.exitCode}${a.kubectlError ? `: ${a.kubectlError}` : ''}), neither 200 nor 401`);
  const calls = a.sts.filter((r) => r.operation === 'GetCallerIdentity');
  const denied = a.serverLines.map((l) => /msg="access denied".*?error="((?:[^"\\]|\\.)*)"/.exec(l)?.[1]).find((x) => x !== undefined)?.replace(/\\"/g, '"') ?? '(no "access denied" line in the authenticator\'s log)';
  const refusedBy = calls.length === 0 ? 'authenticator' : calls.some((r) => r.status !== 200) ? 'sts' : 'mapping';
  return { status: 401, refusedBy, reason: denied };
}

function agreeVerdict(p: TokenReviewVerdict, o: TokenReviewVerdict): boolean {
  if (p.status === 200 || o.status === 200) return p.status === o.status && p.status === 200 && o.status === 200 && p.username === o.username && [...p.groups].sort().join() === [...o.groups].sort().join();
  return p.refusedBy === o.refusedBy && o.reason.includes(p.reason);
}

function attemptEvidence(lab: IamAuthenticatorLab, user: string, token: string, a: Attempt, whoami?: Attempt): Evidence[] {
  const all = [a, ...(whoami ? [whoami] : [])];
  return [
    { kind: 'data', label: `kubectl --user ${user}`, data: { status: a.status, exitCode: a.exitCode, ...(a.kubectlError ? { error: a.kubectlError } : {}), tokenContents: describeToken(token) } },
    { kind: 'invocation', label: `plugin runs (recording wrapper in front of ${lab.plugin.path})`, data: all.flatMap((x) => x.runs).map(runEvidence) },
    { kind: 'data', label: 'fake STS requests', data: all.flatMap((x) => x.sts).map((r) => ({ seq: r.seq, operation: r.operation, host: r.sts?.host, k8sAwsId: r.sts?.k8sAwsId, presigned: r.sts?.presigned, accessKeyId: r.accessKeyId, signature: r.signature, status: r.status, error: r.error, caller: r.sts?.caller })) },
    { kind: 'log', label: 'aws-iam-authenticator server log', file: lab.serverLog, text: all.flatMap((x) => x.serverLines).join('\n') },
  ];
}

function runEvidence(r: RecordedExecRun): Record<string, unknown> {
  const answer = answerOf(r);
  return {
    args: r.args, exitCode: r.exitCode, durationMs: r.durationMs, execInfoApiVersion: (r.execInfo as { apiVersion?: string } | undefined)?.apiVersion,
    answer: { apiVersion: answer.apiVersion, kind: answer.kind, expirationTimestamp: answer.expirationTimestamp, tokenContents: describeToken(answer.token ?? '') },
    ...(r.exitCode ? { stderr: r.stderr.slice(-600) } : {}),
  };
}

function answerOf(r: RecordedExecRun): { apiVersion?: string; kind?: string; expirationTimestamp?: string; token?: string } {
  try {
    const j = JSON.parse(r.stdout) as { apiVersion?: string; kind?: string; status?: { expirationTimestamp?: string; token?: string } };
    return { ...(j.apiVersion ? { apiVersion: j.apiVersion } : {}), ...(j.kind ? { kind: j.kind } : {}), ...(j.status?.expirationTimestamp ? { expirationTimestamp: j.status.expirationTimestamp } : {}), ...(j.status?.token ? { token: j.status.token } : {}) };
  } catch {
    return {};
  }
}

function tokenOf(r: RecordedExecRun): string {
  return answerOf(r).token ?? '';
}

function userInfoOf(stdout: string): { username: string; groups: string[]; extra?: Record<string, string[]> } | undefined {
  try {
    const u = (JSON.parse(stdout) as { status?: { userInfo?: { username?: string; groups?: string[]; extra?: Record<string, string[]> } } }).status?.userInfo;
    return u?.username ? { username: u.username, groups: u.groups ?? [], ...(u.extra ? { extra: u.extra } : {}) } : undefined;
  } catch {
    return undefined;
  }
}

/** The lines a log file gained since `offset`. */
async function readFrom(file: string, offset: number): Promise<string[]> {
  const fh = await open(file, 'r').catch(() => undefined);
  if (!fh) return [];
  try {
    const { size } = await fh.stat();
    if (size <= offset) return [];
    const buf = Buffer.alloc(size - offset);
    await fh.read(buf, 0, buf.length, offset);
    return buf.toString('utf8').split('\n').filter(Boolean);
  } finally {
    await fh.close();
  }
}

async function waitFor(what: string, cond: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function harnessFailure(check: Check, err: unknown): CheckResult {
  return { ...check, status: 'failed', cause: 'harness', message: `harness error: ${errorMessage(err)}`, evidence: [], startedAt: new Date().toISOString(), durationMs: 0 };
}
