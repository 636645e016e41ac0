// The pull-secrets suite: a pod's imagePullSecrets against the real kubelet and
// API server. One htpasswd registry (one account; "wrong" credentials are a
// refused password or an unknown user), a fresh namespace per run with
// dockerconfigjson secrets for it, one image repository per case, and one
// recording fake provider for the case that mixes secrets with a provider.
// Every case states its prediction (the design text "Packaging APIs +
// Registry Auth", and the keyring model src/model/pull-credentials.ts) before
// it acts; the cases run concurrently, each with its own pods.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { ApiError, kubeApi } from '../../src/cluster/api.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { CredprovError, TimeoutError, errorMessage } from '../../src/core/errors.ts';
import { predictPull, type Credential, type PullCase } from '../../src/model/pull-credentials.ts';
import { skipped } from '../../src/report/checks.ts';
import type { Check, CheckResult, Evidence } from '../../src/report/model.ts';
import { answer, kubeletEvidence, prepareFleet, pullFailure, startLabRegistry, type Fleet, type LabRegistry } from '../../src/run/lab.ts';
import { createPod, podEvents, podOutcome, waitForPodEvents, waitForPodOutcome, watchPod, type PodEvent, type PodOutcome } from '../../src/run/pods.ts';
import { judge } from '../../src/run/prediction.ts';
import type { PreparedSuite, Suite, SuiteRun, SuiteSetup } from '../../src/run/suite.ts';
import { EVERY_SECRET_TRIED, EXPLICIT_NOT_MERGED, IMMUTABLE, MISSING_THEN_CREATED, PLACEHOLDER_FILLED, PULL_SECRETS_CHECKS, SA_LATE_NOT_ADOPTED, SECRET_AND_PROVIDER } from './checks.ts';

const DESIGN = 'design: Packaging APIs + Registry Auth (shared/seeds/004)';
const MODEL = 'pull-credentials model (src/model/pull-credentials.ts: kubelet secrets.go MakeDockerKeyring + kuberuntime_image.go PullImage)';
const PROVIDER = 'credprov-secrets-mix';
/** First pull: the image pull itself is quick; the pod needs its sandbox first. */
const FIRST_OUTCOME_MS = 60_000;
/** A recovery needs at least one kubelet retry (image pull backoff starts at 10s, then 20s). */
const RECOVERY_MS = 75_000;

/** The repositories, one per case (`secrets/<name>`). */
const REPOS = ['missing', 'placeholder', 'immutable', 'explicit', 'sa-late', 'every', 'mix-a', 'mix-b'] as const;
type Repo = (typeof REPOS)[number];

type Observed = 'success' | 'failure' | string;

export const pullSecretsSuite: Suite = {
  name: 'pull-secrets',
  summary: 'imagePullSecrets on the real kubelet: a secret created late or filled in late, immutability, service-account pull secrets not merged or adopted, every secret tried, secrets before a credential provider',
  checks: PULL_SECRETS_CHECKS,
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const id = randomBytes(3).toString('hex');
    let lab: LabRegistry | undefined;
    let fleet: Fleet | undefined;
    const live: { env?: Environment; namespace?: string } = {};
    const cleanup = async () => {
      if (live.env && live.namespace) await deleteNamespace(live.env, live.namespace);
      live.namespace = undefined;
      await lab?.stop({ keepLogAs: 'registry.log' });
      lab = undefined;
      await fleet?.redactArtifacts();
    };
    try {
      lab = await startLabRegistry(ctx, 'secrets');
      const host = lab.registry.host;
      for (const repo of REPOS) await lab.push(`secrets/${repo}`);
      const creds = credentials(lab, id);
      ctx.redactor.add(creds.secretWrong.password, creds.providerWrong.password);
      // One provider for both mixed pods: right credentials for mix-a, wrong ones for mix-b.
      fleet = await prepareFleet(ctx, [{
        name: PROVIDER,
        matchImages: [`${host}/secrets/mix-`],
        scenario: {
          rules: [
            ...(answer([`${host}/secrets/mix-a`], { [host]: creds.right }).rules),
            ...(answer([`${host}/secrets/mix-b`], { [host]: creds.providerWrong }).rules),
          ],
        },
      }]);
      const f = fleet;
      const l = lab;
      return {
        spec: f.spec,
        needs: ['installPlugins', 'hostRegistries'],
        run: async (run) => {
          live.env = run.environment;
          live.namespace = `credprov-secrets-${id}`;
          try {
            return await runCases(run, { lab: l, fleet: f, namespace: live.namespace, creds });
          } finally {
            await deleteNamespace(run.environment, live.namespace);
            live.namespace = undefined;
          }
        },
        cleanup,
      };
    } catch (err) {
      await cleanup();
      throw err;
    }
  },
};

interface Creds {
  right: { username: string; password: string };
  /** The registry's user with a password it refuses (the wrong secret of most cases). */
  wrong: { username: string; password: string };
  /** Unknown users, so the registry log tells which source offered them. */
  secretWrong: { username: string; password: string };
  providerWrong: { username: string; password: string };
}

function credentials(lab: LabRegistry, id: string): Creds {
  return {
    right: { username: lab.user.username, password: lab.user.password },
    wrong: { username: lab.user.username, password: lab.wrongPassword },
    secretWrong: { username: `secret-wrong-${id}`, password: lab.wrongPassword },
    providerWrong: { username: `provider-wrong-${id}`, password: randomBytes(12).toString('hex') },
  };
}

interface Fixture {
  lab: LabRegistry;
  fleet: Fleet;
  namespace: string;
  creds: Creds;
}

async function runCases(ctx: SuiteRun, f: Fixture): Promise<CheckResult[]> {
  const env = ctx.environment;
  const ns = f.namespace;
  const host = f.lab.registry.host;
  const api = await kubeApi(env);
  const image = (repo: Repo) => `${host}/secrets/${repo}:v1`;
  const { right, wrong, secretWrong, providerWrong } = f.creds;
  const works = (c: { username: string; password: string }): Credential => ({ username: c.username, works: c === right });
  await f.lab.serveAs(env, host);

  // The namespace, its secrets and service accounts. Pods need the default SA
  // (made by the controller-manager) and kube-root-ca.crt (their token volume).
  await api.apply([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'app.kubernetes.io/managed-by': 'credprov' } } }]);
  const secret = (name: string, auths: Record<string, { username: string; password: string }>) => dockerSecret(ns, name, auths);
  await api.apply([
    secret('right', { [host]: right }),
    secret('wrong', { [host]: wrong }),
    secret('mix-wrong', { [host]: secretWrong }),
    secret('placeholder', {}),
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'with-right-secret', namespace: ns }, imagePullSecrets: [{ name: 'right' }] },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'late', namespace: ns } },
  ]);
  await poll(`the default service account and kube-root-ca.crt in ${ns}`, 30_000, async () => {
    const ok = await Promise.all([
      api.core.readNamespacedServiceAccount({ name: 'default', namespace: ns }).then(() => true, () => false),
      api.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: ns }).then(() => true, () => false),
    ]);
    return ok.every(Boolean) ? true : undefined;
  });

  const evidenceOf = async (names: string[], extra: { secrets?: string[]; serviceAccounts?: string[]; repos?: Repo[] } = {}): Promise<Evidence[]> => {
    const out: Evidence[] = [];
    for (const name of names) out.push({ kind: 'event', label: `events of pod ${ns}/${name}`, data: await podEvents(env, name, ns).catch(() => []) });
    for (const s of extra.secrets ?? []) out.push({ kind: 'data', label: `secret ${ns}/${s} (redacted)`, data: await secretView(env, ns, s, ctx) });
    for (const sa of extra.serviceAccounts ?? []) out.push({ kind: 'data', label: `service account ${ns}/${sa}`, data: await saView(env, ns, sa) });
    for (const repo of extra.repos ?? []) {
      const trail = await authTrail(f.lab, `secrets/${repo}`);
      out.push({ kind: 'data', label: `registry authentications for secrets/${repo}, in order`, data: trail });
    }
    return out;
  };
  const onFailure = async (r: CheckResult, pods: string[], repos: Repo[]): Promise<CheckResult> => {
    if (r.status !== 'failed') return r;
    const log = await registryExcerpt(f.lab, repos.map((x) => `secrets/${x}`), ctx);
    return { ...r, evidence: [...r.evidence, ...(await kubeletEvidence(env, [...pods, ...repos.map((x) => `secrets/${x}`)])), ...(log ? [log] : [])] };
  };

  const cases: Array<[Check, () => Promise<CheckResult>]> = [
    // 1. The secret does not exist yet: created right after the first ErrImagePull.
    [MISSING_THEN_CREATED, async () => {
      const startedAt = new Date();
      const pod = 'missing';
      const base: PullCase = { image: image('missing'), secrets: [{ name: 'late-secret', exists: false, auths: { [host]: works(right) } }] };
      const before = predictPull(base);
      const after = predictPull({ ...base, secrets: [{ ...base.secrets[0]!, exists: true }] });
      const prediction = {
        value: { beforeSecret: before.pull, afterSecret: after.pull },
        model: `${DESIGN} + ${MODEL}`,
        because: `a missing pull secret does not block the pod (before: ${before.because}); the kubelet retries and reads the secret once it exists (after: ${after.because})`,
      };
      await createPod(env, { name: pod, namespace: ns, image: image('missing'), pullPolicy: 'Always', imagePullSecrets: ['late-secret'] });
      const first = await firstOutcome(env, pod, ns);
      if (first.observed === 'failure') await api.apply([secret('late-secret', { [host]: right })]);
      const later = first.observed === 'failure' ? await recovered(env, pod, ns) : first;
      const observed = { beforeSecret: first.observed, afterSecret: later.observed };
      return onFailure(judge(MISSING_THEN_CREATED, {
        prediction, observed, startedAt,
        show: (v) => `pull before the secret exists: ${v.beforeSecret}; after it is created: ${v.afterSecret}`,
        evidence: await evidenceOf([pod], { secrets: ['late-secret'] }),
      }), [pod], ['missing']);
    }],

    // 2. A placeholder secret {"auths":{}} filled in after the first failure.
    [PLACEHOLDER_FILLED, async () => {
      const startedAt = new Date();
      const pod = 'placeholder';
      const empty = predictPull({ image: image('placeholder'), secrets: [{ name: 'placeholder', auths: {} }] });
      const filled = predictPull({ image: image('placeholder'), secrets: [{ name: 'placeholder', auths: { [host]: works(right) } }] });
      const prediction = {
        value: { empty: empty.pull, filled: filled.pull },
        model: `${DESIGN} + ${MODEL}`,
        because: `"empty secrets will be tried but will result in failure; when secrets get populated with contents, fetchers would succeed" (empty: ${empty.because}; filled: ${filled.because})`,
      };
      await createPod(env, { name: pod, namespace: ns, image: image('placeholder'), pullPolicy: 'Always', imagePullSecrets: ['placeholder'] });
      const first = await firstOutcome(env, pod, ns);
      if (first.observed === 'failure') await api.apply([secret('placeholder', { [host]: right })]);
      const later = first.observed === 'failure' ? await recovered(env, pod, ns) : first;
      const observed = { empty: first.observed, filled: later.observed };
      return onFailure(judge(PLACEHOLDER_FILLED, {
        prediction, observed, startedAt,
        show: (v) => `pull with the empty secret: ${v.empty}; after it is filled in: ${v.filled}`,
        evidence: await evidenceOf([pod], { secrets: ['placeholder'] }),
      }), [pod], ['placeholder']);
    }],

    // 3. imagePullSecrets cannot be changed on an existing pod.
    [IMMUTABLE, async () => {
      const startedAt = new Date();
      const pod = 'immutable';
      const prediction = {
        value: { update: 'refused', imagePullSecretsAfter: ['right'] },
        model: DESIGN,
        because: '"(verified) imagePullSecrets field on Pod is immutable": the API server refuses the update and the pod keeps its secrets',
      };
      await createPod(env, { name: pod, namespace: ns, image: image('immutable'), pullPolicy: 'Always', imagePullSecrets: ['right'] });
      let apiMessage = '';
      let update = 'accepted';
      try {
        await api.core.patchNamespacedPod({ name: pod, namespace: ns, body: { spec: { imagePullSecrets: [{ name: 'right' }, { name: 'wrong' }] } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      } catch (err) {
        update = 'refused';
        apiMessage = refusal(err);
      }
      const after = await api.core.readNamespacedPod({ name: pod, namespace: ns });
      const observed = { update, imagePullSecretsAfter: (after.spec?.imagePullSecrets ?? []).map((s) => s.name) };
      return judge(IMMUTABLE, {
        prediction, observed, startedAt, actor: 'the API server',
        show: (v) => `update of spec.imagePullSecrets ${v.update}${v === observed && apiMessage ? ` ("${apiMessage}")` : ''}; the pod's imagePullSecrets: [${v.imagePullSecretsAfter.join(', ')}]`,
        evidence: [{ kind: 'text', label: 'the API server\'s answer to the patch', text: apiMessage || '(accepted)' }, { kind: 'data', label: `pod ${ns}/${pod} spec.imagePullSecrets after the patch`, data: after.spec?.imagePullSecrets ?? [] }],
      });
    }],

    // 4. Explicit (wrong) imagePullSecrets; the service account has the right one.
    [EXPLICIT_NOT_MERGED, async () => {
      const startedAt = new Date();
      const pod = 'explicit';
      // ServiceAccount admission copies the SA's pull secrets only into a pod that has none.
      const podSecrets = ['wrong'];
      const p = predictPull({ image: image('explicit'), secrets: [{ name: 'wrong', auths: { [host]: works(wrong) } }] });
      const prediction = {
        value: { podImagePullSecrets: podSecrets, pull: p.pull },
        model: `${DESIGN} + ${MODEL}`,
        because: `"if Pod specifies imagePullSecrets then service account pull secrets will not be added to the Pod"; ${p.because}`,
      };
      await createPod(env, { name: pod, namespace: ns, image: image('explicit'), pullPolicy: 'Always', imagePullSecrets: ['wrong'], serviceAccountName: 'with-right-secret' });
      const created = await api.core.readNamespacedPod({ name: pod, namespace: ns });
      const first = await firstOutcome(env, pod, ns);
      const observed = { podImagePullSecrets: (created.spec?.imagePullSecrets ?? []).map((s) => s.name), pull: first.observed };
      return onFailure(judge(EXPLICIT_NOT_MERGED, {
        prediction, observed, startedAt,
        show: (v) => `pod.spec.imagePullSecrets [${v.podImagePullSecrets.join(', ')}], pull ${v.pull}`,
        evidence: await evidenceOf([pod], { secrets: ['wrong', 'right'], serviceAccounts: ['with-right-secret'] }),
      }), [pod], ['explicit']);
    }],

    // 5. The service account gets a pull secret after the pod exists.
    [SA_LATE_NOT_ADOPTED, async () => {
      const startedAt = new Date();
      const pod = 'sa-late';
      const p = predictPull({ image: image('sa-late'), secrets: [] });
      const prediction = {
        value: { podImagePullSecrets: [] as string[], pullAfterRetry: p.pull },
        model: `${DESIGN} + ${MODEL}`,
        because: `"Pods will not adopt the added image pull secret after Pod is created (field is immutable)"; the kubelet reads pod.spec.imagePullSecrets only: ${p.because}`,
      };
      await createPod(env, { name: pod, namespace: ns, image: image('sa-late'), pullPolicy: 'Always', serviceAccountName: 'late' });
      const first = await firstOutcome(env, pod, ns);
      let retry: Attempted = first;
      if (first.observed === 'failure') {
        const pullsBefore = countEvents(await podEvents(env, pod, ns), 'Pulling');
        await api.apply([{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'late', namespace: ns }, imagePullSecrets: [{ name: 'right' }] }]);
        retry = await afterRetry(env, pod, ns, pullsBefore);
      }
      const now = await api.core.readNamespacedPod({ name: pod, namespace: ns });
      const observed = { podImagePullSecrets: (now.spec?.imagePullSecrets ?? []).map((s) => s.name), pullAfterRetry: retry.observed };
      return onFailure(judge(SA_LATE_NOT_ADOPTED, {
        prediction, observed, startedAt,
        show: (v) => `pod.spec.imagePullSecrets [${v.podImagePullSecrets.join(', ')}] after the SA got one; pull after a kubelet retry: ${v.pullAfterRetry}`,
        evidence: await evidenceOf([pod], { serviceAccounts: ['late'] }),
      }), [pod], ['sa-late']);
    }],

    // 6. [wrong, right]: both for the same registry.
    [EVERY_SECRET_TRIED, async () => {
      const startedAt = new Date();
      const pod = 'every';
      const p = predictPull({ image: image('every'), secrets: [{ name: 'wrong', auths: { [host]: works(wrong) } }, { name: 'right', auths: { [host]: works(right) } }] });
      const prediction = {
        value: p.pull,
        model: `${DESIGN} + ${MODEL}`,
        because: `"Kubernetes will try all image pull secrets associated with a Pod even if they contain credentials against the same registry"; ${p.because}`,
      };
      await createPod(env, { name: pod, namespace: ns, image: image('every'), pullPolicy: 'Always', imagePullSecrets: ['wrong', 'right'] });
      const first = await firstOutcome(env, pod, ns);
      const trail = await authTrail(f.lab, 'secrets/every');
      const order = trail.length ? ` (registry saw: ${trail.map((a) => (a.ok ? 'accepted' : `${a.user === right.username ? 'the registry user' : a.user} refused`)).join(' → ')})` : '';
      return onFailure(judge(EVERY_SECRET_TRIED, {
        prediction, observed: first.observed, startedAt,
        show: (v) => `pull with imagePullSecrets [wrong, right]: ${v}${v === first.observed ? order : ''}`,
        evidence: await evidenceOf([pod], { secrets: ['wrong', 'right'], repos: ['every'] }),
      }), [pod], ['every']);
    }],

    // 7. Pull secrets and a provider for the same image; one of the two is wrong.
    [SECRET_AND_PROVIDER, async () => {
      const startedAt = new Date();
      const provider = (c: { username: string; password: string }) => [{ name: PROVIDER, matchImages: [`${host}/secrets/mix-`], auths: { [host]: works(c) } }];
      const a = predictPull({ image: image('mix-a'), secrets: [{ name: 'mix-wrong', auths: { [host]: works(secretWrong) } }], providers: provider(right) });
      const b = predictPull({ image: image('mix-b'), secrets: [{ name: 'right', auths: { [host]: works(right) } }], providers: provider(providerWrong) });
      const sources = (p: { attempts: Array<{ source: string }> }) => p.attempts.map((x) => x.source);
      const prediction = {
        value: { wrongSecretRightProvider: { pull: a.pull, tried: sources(a) }, rightSecretWrongProvider: { pull: b.pull, tried: sources(b) } },
        model: `${MODEL} + KEP-2133`,
        because: `the pod's secrets come before the providers and every credential is tried until one works (mix-a: ${a.because}; mix-b: ${b.because})`,
      };
      const [ra, rb] = await Promise.all([
        (async () => { await createPod(env, { name: 'mix-a', namespace: ns, image: image('mix-a'), pullPolicy: 'Always', imagePullSecrets: ['mix-wrong'] }); return firstOutcome(env, 'mix-a', ns); })(),
        (async () => { await createPod(env, { name: 'mix-b', namespace: ns, image: image('mix-b'), pullPolicy: 'Always', imagePullSecrets: ['right'] }); return firstOutcome(env, 'mix-b', ns); })(),
      ]);
      // Who offered what: a refused user names its source (each wrong credential has its own
      // user); an accepted request can only be the right credential, the provider's for mix-a
      // and the secret's for mix-b.
      const [ta, tb] = await Promise.all([authTrail(f.lab, 'secrets/mix-a'), authTrail(f.lab, 'secrets/mix-b')]);
      const who = (refused: Record<string, string>, accepted: string, trail: AuthAttempt[]) =>
        dedupe(trail.map((x) => (x.ok ? accepted : refused[x.user!] ?? `unknown user ${x.user}`)));
      const observed = {
        wrongSecretRightProvider: { pull: ra.observed, tried: who({ [secretWrong.username]: 'secret mix-wrong' }, `provider ${PROVIDER}`, ta) },
        rightSecretWrongProvider: { pull: rb.observed, tried: who({ [providerWrong.username]: `provider ${PROVIDER}` }, 'secret right', tb) },
      };
      const invocations = await f.fleet.invocations().catch(() => []);
      return onFailure(judge(SECRET_AND_PROVIDER, {
        prediction, observed, startedAt,
        show: (v) => `wrong secret + right provider: ${v.wrongSecretRightProvider.pull}, tried ${v.wrongSecretRightProvider.tried.join(' → ') || 'nothing'}; right secret + wrong provider: ${v.rightSecretWrongProvider.pull}, tried ${v.rightSecretWrongProvider.tried.join(' → ') || 'nothing'}`,
        evidence: [
          ...(await evidenceOf(['mix-a', 'mix-b'], { secrets: ['mix-wrong', 'right'], repos: ['mix-a', 'mix-b'] })),
          { kind: 'invocation', label: `provider invocations (${f.fleet.logFile})`, data: ctx.redactor.value(invocations) },
        ],
      }), ['mix-a', 'mix-b'], ['mix-a', 'mix-b']);
    }],
  ];

  return Promise.all(cases.map(async ([check, body]) => {
    try {
      return await body();
    } catch (err) {
      return { ...skipped(check, ''), status: 'failed' as const, cause: 'harness' as const, message: `harness error: ${errorMessage(err)}` };
    }
  }));
}

// ---- pods, waits ----------------------------------------------------------

interface Attempted {
  /** `success`, `failure` (the registry refused the pull) or `error: <the kubelet's message>`. */
  observed: Observed;
  outcome?: PodOutcome;
  events: PodEvent[];
}

function observedOf(outcome: PodOutcome, events: PodEvent[]): Observed {
  if (outcome.kind === 'completed') return 'success';
  const why = pullFailure(events, outcome);
  return why === 'unauthorized' ? 'failure' : `error: ${why}`;
}

/** The pod's first pull result. */
async function firstOutcome(env: Environment, pod: string, ns: string): Promise<Attempted> {
  const outcome = await waitForPodOutcome(env, pod, FIRST_OUTCOME_MS, ns);
  const events = await podEvents(env, pod, ns);
  return { observed: observedOf(outcome, events), outcome, events };
}

/** Waits for the container to run (a later pull worked), tolerating pull failures until the deadline. */
async function recovered(env: Environment, pod: string, ns: string): Promise<Attempted> {
  let last: PodOutcome | undefined;
  await watchPod(env, pod, ns, RECOVERY_MS, (p) => {
    last = podOutcome(p) ?? last;
    return last?.kind === 'completed' ? last : undefined;
  }).catch(() => undefined);
  const events = await podEvents(env, pod, ns);
  if (!last) return { observed: 'error: no pull outcome', events };
  return { observed: observedOf(last, events), outcome: last, events };
}

/** Waits until the kubelet pulled again (more Pulling events than `pullsBefore`) and that pull ended, or the image was pulled. */
async function afterRetry(env: Environment, pod: string, ns: string, pullsBefore: number): Promise<Attempted> {
  const failedBefore = countEvents(await podEvents(env, pod, ns), 'Failed', /^Failed to pull image/);
  const retried = (events: PodEvent[]) => countEvents(events, 'Pulling') > pullsBefore && countEvents(events, 'Failed', /^Failed to pull image/) > failedBefore;
  const pulled = (events: PodEvent[]) => events.some((e) => e.reason === 'Pulled');
  const events = await waitForPodEvents(env, pod, ns, RECOVERY_MS, (ev) => retried(ev) || pulled(ev), 'to show a retried pull').catch((err: unknown) => {
    if (err instanceof TimeoutError) return undefined;
    throw err;
  });
  if (!events) return { observed: 'error: the kubelet did not retry the pull in time', events: await podEvents(env, pod, ns) };
  const outcome = await waitForPodOutcome(env, pod, 10_000, ns);
  return { observed: observedOf(outcome, events), outcome, events };
}

function countEvents(events: PodEvent[], reason: string, message?: RegExp): number {
  return events.filter((e) => e.reason === reason && (!message || message.test(e.message))).reduce((n, e) => n + (e.count ?? 1), 0);
}

async function poll<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)}s waiting for ${what}`);
    await sleep(500);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the namespace's deletion (not awaited: the namespace controller takes its time); one already gone is fine. */
async function deleteNamespace(env: Environment, ns: string): Promise<void> {
  await kubeApi(env).then((api) => api.core.deleteNamespace({ name: ns })).catch(() => {});
}

// ---- objects ---------------------------------------------------------------

function dockerSecret(namespace: string, name: string, auths: Record<string, { username: string; password: string }>) {
  const config = { auths: Object.fromEntries(Object.entries(auths).map(([k, c]) => [k, { username: c.username, password: c.password, auth: Buffer.from(`${c.username}:${c.password}`).toString('base64') }])) };
  return {
    apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson',
    metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': 'credprov' } },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}

/** A secret as evidence: metadata and the decoded .dockerconfigjson with passwords redacted. */
async function secretView(env: Environment, ns: string, name: string, ctx: SuiteSetup): Promise<unknown> {
  try {
    const s = await (await kubeApi(env)).core.readNamespacedSecret({ name, namespace: ns });
    const raw = s.data?.['.dockerconfigjson'];
    const decoded = raw === undefined ? undefined : JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as unknown;
    // The API server's second-precision time, as it sent it (client-node makes it a Date).
    const created = s.metadata?.creationTimestamp?.toISOString().replace('.000Z', 'Z');
    return ctx.redactor.value({ name: s.metadata?.name, type: s.type, resourceVersion: s.metadata?.resourceVersion, created, dockerconfigjson: decoded });
  } catch (err) {
    return { name, error: errorMessage(err) };
  }
}

async function saView(env: Environment, ns: string, name: string): Promise<unknown> {
  try {
    const sa = await (await kubeApi(env)).core.readNamespacedServiceAccount({ name, namespace: ns });
    return { name: sa.metadata?.name, resourceVersion: sa.metadata?.resourceVersion, imagePullSecrets: sa.imagePullSecrets ?? [] };
  } catch (err) {
    return { name, error: errorMessage(err) };
  }
}

/** The API server's reason for refusing an update (its Status message). */
function refusal(err: unknown): string {
  const text = err instanceof ApiError && err.serverMessage ? err.serverMessage : err instanceof CredprovError && err.detail ? err.detail : errorMessage(err);
  const line = text.split('\n').find((l) => /invalid|forbidden/i.test(l)) ?? text.split('\n')[0] ?? '';
  return line.replace(/\s+/g, ' ').trim().slice(0, 400);
}

// ---- the registry's log ------------------------------------------------------

interface AuthAttempt {
  /** The user name the registry refused; undefined for an authorized request (distribution 2.8 does not log who it authorized). */
  user?: string;
  ok: boolean;
}

/**
 * The kubelet's (containerd's) authentications against a repository, in log
 * order, consecutive repeats folded: distribution logs `error authenticating
 * user "X"` for refused basic auth and `authorized request` for a request it
 * let through. The harness's own pushes (no user agent) are left out.
 */
async function authTrail(lab: LabRegistry, repo: string): Promise<AuthAttempt[]> {
  const text = await readFile(lab.registry.logFile, 'utf8').catch(() => '');
  const out: AuthAttempt[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes(`/v2/${repo}/`) || !line.includes('useragent=containerd')) continue;
    const refused = /error authenticating user \\?"([^"\\]+)\\?"/.exec(line);
    const a: AuthAttempt | undefined = refused ? { user: refused[1]!, ok: false } : line.includes('msg="authorized request"') ? { ok: true } : undefined;
    if (!a) continue;
    const prev = out.at(-1);
    if (!prev || prev.user !== a.user || prev.ok !== a.ok) out.push(a);
  }
  return out;
}

function dedupe(xs: string[]): string[] {
  return xs.filter((x, i) => i === 0 || xs[i - 1] !== x);
}

async function registryExcerpt(lab: LabRegistry, repos: string[], ctx: SuiteSetup): Promise<Evidence | undefined> {
  const text = await readFile(lab.registry.logFile, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const lines = text.split('\n').filter((l) => repos.some((r) => l.includes(`/v2/${r}/`))).slice(-20);
  return lines.length ? { kind: 'log', label: 'registry log excerpt', file: lab.registry.logFile, text: ctx.redactor.text(lines.join('\n')) } : undefined;
}
