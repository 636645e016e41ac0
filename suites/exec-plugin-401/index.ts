// The exec-plugin-401 suite: client exec credential plugins (KEP-541) against
// a live kube-apiserver that can say 401. credprov's token webhook
// (src/authn) authenticates the tokens the fake exec plugin fetches from it,
// issuing, expiring and revoking them as each behaviour scripts; client
// certificates come from the cluster CA. Every real client credprov knows
// (kubectl, client-go, @kubernetes/client-node, the Python client; probes in
// src/clients) runs the same scripted sessions. Each check first states what
// credprov's models predict for that client (src/model/exec-credential-cache.ts,
// exec-info.ts, apiserver-authn.ts), then compares with the requests' statuses
// and the plugin runs (the plugin's own log) the client really made.
// Differences between clients are facts for users, not failures: a check
// fails only when a client does what the model did not predict.
//
// The webhook must answer where the API server was told at its start, so it
// listens on the environment's own loopback address and port with a CA kept
// under the state dir (src/authn/webhook-files.ts): a running environment
// with the same spec is reused run after run. credprov's OIDC issuer
// (src/authn/oidc-issuer.ts) sits beside it on the same address and CA, and
// an AuthenticationConfiguration (--authentication-config) points the API
// server's structured JWT authenticator at it: the second real 401 mechanism,
// checked by the API-server checks in jwt.ts.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { ensureAuthenticationConfig } from '../../src/authn/authentication-config.ts';
import { startOidcIssuer, type StartedOidcIssuer } from '../../src/authn/oidc-issuer.ts';
import { TokenBook } from '../../src/authn/token-book.ts';
import { EXEC_PLUGIN_GROUP, startTokenWebhook, type StartedTokenWebhook } from '../../src/authn/token-webhook.ts';
import { ensureTokenWebhookFiles, type TokenWebhookFiles } from '../../src/authn/webhook-files.ts';
import { ensureClientGoProbe } from '../../src/clients/client-go.ts';
import { availableProbes, type ProbeAvailability } from '../../src/clients/index.ts';
import { probeKubeconfig } from '../../src/clients/kubeconfig.ts';
import { CLIENT_NAMES } from '../../src/clients/probe.ts';
import { pkiPaths } from '../../src/cluster/local/certs.ts';
import { allowGroupRead } from '../../src/cluster/rbac.ts';
import { errorMessage } from '../../src/core/errors.ts';
import type { ClientSetting } from '../../src/model/exec-info.ts';
import { skipped } from '../../src/report/checks.ts';
import type { Check, CheckResult, Evidence } from '../../src/report/model.ts';
import { judge } from '../../src/run/prediction.ts';
import type { PreparedSuite, Suite, SuiteRun, SuiteSetup } from '../../src/run/suite.ts';
import { checkRevocationDelay, checkWebhookAuthenticates, type Target } from './apiserver.ts';
import { BEHAVIOURS, type Behaviour, type SessionPlan } from './behaviours.ts';
import { clientCheck, EXEC401_CHECKS, JWT_ACCEPTED, JWT_CHECKS, REVOCATION_DELAY, WEBHOOK_AUTHENTICATES } from './checks.ts';
import { checkJwksKeyRemoved, checkJwtAccepted, checkJwtExpiry, JwtProbe } from './jwt.ts';
import { plannedTimes, predictSession, type SessionView } from './predict.ts';
import { runSession, type ClusterAccess, type ObservedSession } from './session.ts';

const NAMESPACE = 'credprov-exec-401';
const PATH = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const MODEL = 'exec client models (src/model/exec-credential-cache.ts, exec-info.ts) + API server authn model (src/model/apiserver-authn.ts)';
const REQUEST_TIMEOUT_MS = 60_000;
/** Sessions run side by side (each client's sessions are independent: own kubeconfig, plugin log, token subject). */
const CONCURRENCY = 8;
/** The audience the API server accepts JWTs for (jwt[].issuer.audiences) and the issuer signs them for. */
const JWT_AUDIENCE = 'credprov-exec-401';

export const execPlugin401Suite: Suite = {
  name: 'exec-plugin-401',
  summary: 'client exec credential plugins against a live API server that says 401 (credprov\'s token webhook): caching until expirationTimestamp, re-exec after a 401, revoked and expired tokens, a plugin repeating a refused token, client certificates and their rotation, provideClusterInfo, interactiveMode × terminal, v1 and v1beta1; per real client (kubectl, client-go, client-node, python), credprov\'s model predicts and the client is compared. Cells read <status>/<plugin runs> per request',
  checks: EXEC401_CHECKS,
  needsBuild: 'the client-go probe against the cluster\'s client-go (src/clients/client-go-probe, from the Go module proxy; built on first use, seconds with a warm Go build cache)',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const files = await ensureTokenWebhookFiles(ctx.environmentName, ctx.processEnv);
    const reviewLog = join(ctx.artifactsDir, 'webhook-reviews.jsonl');
    await rm(reviewLog, { force: true });
    // Every token the webhook issues is a secret from birth.
    const book = new TokenBook({ onIssue: (t) => ctx.redactor.add(t) });
    const hook = await startTokenWebhook({ address: files.address, port: files.port, certFile: files.certFile, keyFile: files.keyFile, issueKeyFile: files.issueKeyFile, book, reviewLog, log: ctx.log });
    // Up before the environment, as the webhook: a freshly started API server discovers the issuer at once.
    let issuer: StartedOidcIssuer;
    try {
      issuer = await startOidcIssuer({ address: files.address, port: files.issuerPort, certFile: files.certFile, keyFile: files.keyFile, audiences: [JWT_AUDIENCE], log: ctx.log });
    } catch (err) {
      await hook.stop();
      throw err;
    }
    const authenticationConfigFile = await ensureAuthenticationConfig(files, [JWT_AUDIENCE]);
    return {
      // Only the files' paths are in the spec: the API server is not tied to this webhook (issue-iam wires another one the same way).
      spec: { apiserver: { tokenWebhookConfigFile: files.kubeconfigFile, authenticationConfigFile } },
      run: (run) => runSuite(run, hook, files, issuer),
      cleanup: async () => {
        await Promise.all([hook.stop(), issuer.stop()]);
      },
    };
  },
};

async function runSuite(ctx: SuiteRun, hook: StartedTokenWebhook, files: TokenWebhookFiles, issuer: StartedOidcIssuer): Promise<CheckResult[]> {
  const env = ctx.environment;
  const ci = ctx.processEnv.CI === 'true' || ctx.processEnv.CI === '1';
  const notRun = (c: Check, reason: string): CheckResult => {
    const r = skipped(c, reason);
    return ci ? { ...r, status: 'failed', cause: 'harness' } : r;
  };
  if (env.provider !== 'local') {
    return EXEC401_CHECKS.map((c) => notRun(c, `needs the local provider: it wires the token webhook and the JWT authenticator into kube-apiserver and signs client certificates with the cluster CA; this environment is ${env.provider}`));
  }
  const cluster = await clusterAccess(env.kubeconfig, env.stateDir);
  const target: Target = { server: cluster.server, caPem: cluster.caPem, path: PATH };
  await allowGroupRead(env, { group: EXEC_PLUGIN_GROUP, namespace: NAMESPACE, resources: ['configmaps'], name: 'credprov-exec-401' });

  const results: CheckResult[] = [];
  const wired = await checkWebhookAuthenticates(target, hook);
  results.push(wired);
  const clientChecks = BEHAVIOURS.flatMap((b) => CLIENT_NAMES.map((c) => ({ b, c })));
  if (wired.status !== 'passed') {
    for (const c of [REVOCATION_DELAY, ...JWT_CHECKS]) results.push({ ...skipped(c, 'not run'), status: 'failed', cause: 'harness', message: `not run: ${WEBHOOK_AUTHENTICATES.id} failed (${wired.message})` });
    for (const { b, c } of clientChecks) results.push({ ...skipped(clientCheck(b, c), 'not run'), status: 'failed', cause: 'harness', message: `not run: the API server does not authenticate through credprov's token webhook (${WEBHOOK_AUTHENTICATES.id})` });
    return results;
  }

  // The client-go probe is built against the cluster's client-go on first use (a failed build leaves client-go unavailable, with the reason).
  await ensureClientGoProbe({ kubeVersion: env.kubeVersion, env: ctx.processEnv, progress: ctx.progress }).catch((e: unknown) => ctx.log.warn(`building the client-go probe: ${errorMessage(e)}`));
  const probes = new Map((await availableProbes({ kubeVersion: env.kubeVersion, env: ctx.processEnv })).map((p) => [p.probe.name, p]));
  // The revocation check waits for the API server's cache; it runs beside the client sessions.
  // Both run beside the client pool and are awaited after it: a throw must become a harness failure there, not an unhandled rejection now.
  const harnessFailure = (checks: Check[]) => (err: unknown): CheckResult[] => checks.map((c) => ({ ...skipped(c, 'not run'), status: 'failed', cause: 'harness', message: `harness error: ${errorMessage(err)}` }));
  const revocation = checkRevocationDelay(target, hook).then((r) => [r], harnessFailure([REVOCATION_DELAY]));
  // The JWT checks run one after another (the API server's cached JWKS carries over), beside the client sessions.
  const jwt = runJwtChecks(new JwtProbe(issuer, { server: cluster.server, caPem: cluster.caPem }, ctx.redactor)).catch(harnessFailure(JWT_CHECKS));
  const byCheck = new Map<string, CheckResult>();
  // The longest sessions first, so the pool's tail is short.
  const tasks = [...clientChecks].sort((x, y) => length(y.b) - length(x.b));
  await pool(tasks, CONCURRENCY, async ({ b, c }) => {
    const check = clientCheck(b, c);
    const probe = probes.get(c);
    const r = !probe?.availability.ok
      ? notRun(check, `${c} is not available here: ${probe && !probe.availability.ok ? probe.availability.reason : 'no probe'}`)
      : await runClientCheck(check, b, probe, { ctx, hook, files, cluster });
    byCheck.set(check.id, r);
  });
  results.push(...(await revocation), ...(await jwt));
  // Report order: behaviours as listed, clients in CLIENT_NAMES order.
  for (const { b, c } of clientChecks) results.push(byCheck.get(clientCheck(b, c).id)!);
  return results;
}

async function runJwtChecks(p: JwtProbe): Promise<CheckResult[]> {
  const accepted = await checkJwtAccepted(p);
  if (accepted.status !== 'passed') {
    return [accepted, ...JWT_CHECKS.slice(1).map((c): CheckResult => ({ ...skipped(c, 'not run'), status: 'failed', cause: 'harness', message: `not run: ${JWT_ACCEPTED.id} failed (${accepted.message})` }))];
  }
  const expiry = await checkJwtExpiry(p);
  return [accepted, expiry, await checkJwksKeyRemoved(p)];
}

const length = (b: Behaviour) => b.sessions.reduce((n, s) => n + plannedTimes(s).at(-1)! + 1000 * s.steps.length, 0);

interface Shared {
  ctx: SuiteRun;
  hook: StartedTokenWebhook;
  files: TokenWebhookFiles;
  cluster: ClusterAccess;
}

async function runClientCheck(check: Check, b: Behaviour, probe: ProbeAvailability, s: Shared): Promise<CheckResult> {
  const client = probe.probe.name;
  const startedAt = new Date();
  const settings = b.sessions.map((plan) => settingFor(plan, s.cluster));
  const planned = b.sessions.map((plan, i) => predictSession(client, plan, settings[i]!, plannedTimes(plan)));
  const observed: ObservedSession[] = [];
  try {
    for (const [i, plan] of b.sessions.entries()) {
      const subject = `${b.key}-${client}-${i}`;
      observed.push(await runSession(plan, {
        probe: probe.probe, hook: s.hook, files: s.files, cluster: s.cluster, redactor: s.ctx.redactor,
        dir: join(s.ctx.artifactsDir, 'sessions', subject), subject, path: PATH, timeoutMs: REQUEST_TIMEOUT_MS,
      }));
    }
  } catch (err) {
    return { ...check, status: 'failed', cause: 'harness', message: `harness error running ${client}: ${errorMessage(err)}`, evidence: sessionEvidence(observed, s.hook), startedAt: startedAt.toISOString(), durationMs: Date.now() - startedAt.getTime() };
  }
  const evidence = [...sessionEvidence(observed, s.hook), { kind: 'text' as const, label: 'the model, step by step', text: planned.map((p, i) => `${b.sessions[i]!.label || 'session'}:\n  ${p.because.join('\n  ')}`).join('\n') }];
  // At the times the steps really ran, would the model say the same? If not, the schedule slipped (a loaded machine) and this is no verdict on the client.
  const replayed = b.sessions.map((plan, i) => predictSession(client, plan, settings[i]!, observed[i]!.steps.map((st) => st.at)));
  const slipped = replayed.findIndex((r, i) => !isDeepStrictEqual(r.view, planned[i]!.view));
  if (slipped >= 0) {
    return {
      ...check, status: 'failed', cause: 'harness',
      message: `the schedule slipped: at the times the steps ran (${observed[slipped]!.steps.map((st) => `+${(st.at / 1000).toFixed(1)}s`).join(', ')}) the model predicts ${showView(replayed[slipped]!.view)}, not the planned ${showView(planned[slipped]!.view)}; no verdict on ${client}`,
      evidence, startedAt: startedAt.toISOString(), durationMs: Date.now() - startedAt.getTime(),
    };
  }
  const result = judge(check, {
    prediction: { value: planned.map((p) => p.view), model: MODEL, because: planned.map((p) => p.because[0]).filter((x, i, all) => all.indexOf(x) === i).join('; ') },
    observed: observed.map((o) => o.view),
    show: (v) => v.map(showView).join('; '),
    actor: client,
    evidence,
    startedAt,
  });
  // A retry hides a transport error from the verdict (as from the client's user), not from the reader.
  const retried = observed.flatMap((o) => o.steps.flatMap((st) => st.response?.transportErrors ?? []));
  const retryNote = retried.length ? ` (${client} retried past ${retried.length} transport error${retried.length > 1 ? 's' : ''}, e.g. "${retried[0]}"; see the requests evidence)` : '';
  return { ...result, message: `${result.message}${retryNote}`, cell: { ...check.cell!, text: cellText(b, observed.map((o) => o.view)) } };
}

function settingFor(plan: SessionPlan, c: ClusterAccess): ClientSetting {
  // The cluster mapping exactly as the probe's kubeconfig writes it (what the Python client passes on as spec.cluster).
  const kc = probeKubeconfig({ server: c.server, caPem: c.caPem, exec: { command: '', args: [], env: [], apiVersion: plan.user.apiVersion, interactiveMode: plan.user.interactiveMode, provideClusterInfo: plan.user.provideClusterInfo }, resolvedCommand: '', ...(plan.clusterConfig !== undefined ? { clusterConfig: plan.clusterConfig } : {}) }) as { clusters: Array<{ cluster: Record<string, unknown> }> };
  return { user: plan.user, cluster: { raw: kc.clusters[0]!.cluster, server: c.server, caData: Buffer.from(c.caPem).toString('base64') }, terminal: plan.terminal };
}

async function clusterAccess(kubeconfig: string, stateDir: string): Promise<ClusterAccess> {
  const kc = parse(await readFile(kubeconfig, 'utf8')) as { clusters: Array<{ cluster: { server: string; 'certificate-authority': string } }> };
  const cluster = kc.clusters[0]!.cluster;
  // The local provider's PKI (src/cluster/local/certs.ts): the CA the API server trusts for client certificates.
  const pki = pkiPaths(join(stateDir, 'certs'));
  return { server: cluster.server, caPem: await readFile(cluster['certificate-authority'], 'utf8'), caCertFile: pki.caCert, caKeyFile: pki.caKey };
}

function sessionEvidence(observed: ObservedSession[], hook: StartedTokenWebhook): Evidence[] {
  return observed.flatMap((o) => {
    const fingerprints = new Set(o.steps.flatMap((st) => st.runs ?? []).map((r) => r.tokenFingerprint).filter(Boolean));
    const reviews = hook.reviews().filter((r) => fingerprints.has(r.fingerprint)).map(({ at, fingerprint, verdict, username }) => ({ at, fingerprint, verdict, ...(username ? { username } : {}) }));
    const label = o.label ? ` (${o.label})` : '';
    const ev: Evidence[] = [
      { kind: 'invocation', label: `requests and the plugin runs during each${label}`, data: { steps: o.steps.map((st) => ({ ...st, runs: (st.runs ?? []).map(runSummary) })), runsOutsideRequests: o.outside.map(runSummary) } },
      { kind: 'data', label: `token webhook reviews of the tokens the plugin returned${label}`, data: reviews },
    ];
    if (o.notes.length) ev.push({ kind: 'text', label: `probe notes${label}`, text: o.notes.join('\n') });
    if (o.clientLog.trim()) ev.push({ kind: 'log', label: `client log${label}`, text: o.clientLog.length > 6000 ? `…${o.clientLog.slice(-6000)}` : o.clientLog });
    return ev;
  });
}

function runSummary(r: ObservedSession['outside'][number]): Record<string, unknown> {
  return { time: r.time, exitCode: r.exitCode, ...(r.error ? { error: r.error } : {}), stdinIsTerminal: r.stdinIsTerminal, execInfo: r.execInfo, ...(r.apiVersion ? { answeredIn: r.apiVersion } : {}), ...(r.tokenFingerprint ? { tokenFingerprint: r.tokenFingerprint } : {}), ...(r.certFingerprint ? { certFingerprint: r.certFingerprint } : {}), ...(r.expirationTimestamp ? { expirationTimestamp: r.expirationTimestamp } : {}) };
}

function showView(v: SessionView): string {
  const told = v.told.map((t) => `${describeInfo(t.execInfo)}${t.stdinIsTerminal ? ', stdin a terminal' : ''}`).join(' | ');
  return `${v.label ? `${v.label}: ` : ''}${v.requests.join(' → ')}${told ? ` [plugin told: ${told}]` : ''}${v.runsOutsideRequests ? ` (+${v.runsOutsideRequests} runs between requests)` : ''}`;
}

function describeInfo(info: unknown): string {
  if (info === null) return 'no KUBERNETES_EXEC_INFO';
  const i = info as { apiVersion?: string; spec?: { interactive?: boolean; cluster?: Record<string, unknown> } };
  const cluster = i.spec?.cluster ? `, spec.cluster {${Object.keys(i.spec.cluster).join(', ')}}` : '';
  return `${i.apiVersion?.split('/')[1] ?? '?'}, interactive ${String(i.spec?.interactive)}${cluster}`;
}

/** A few words per cell: the request sequence, or what the plugin was told per session. */
function cellText(b: Behaviour, views: SessionView[]): string {
  if (b.show === 'requests') return views.map((v) => v.requests.join(' → ')).join('; ');
  return views.map((v) => {
    const t = v.told[0];
    const what = !t ? 'not run' : `${describeInfo(t.execInfo).replace('no KUBERNETES_EXEC_INFO', 'no exec info')}${t.stdinIsTerminal ? ', tty' : ''}`;
    return `${v.label}: ${what} → ${v.requests.map((r) => r.split('/')[0]).join(',')}`;
  }).join('; ');
}

async function pool<T>(items: T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}
