// The vendor-ecr suite: the real ecr-credential-provider (kubernetes/cloud-provider-aws,
// built unmodified from the Go module proxy) under the real kubelet.
//
// - Fake AWS on loopback (src/plugin/vendors/fake-aws.ts): ECR GetAuthorizationToken
//   (SigV4-verified; token lifetime per region) and STS AssumeRoleWithWebIdentity
//   (the token verified against the API server's own OIDC discovery and JWKS).
//   The provider entries' env points every AWS endpoint there and turns IMDS off.
// - Two lab registries (htpasswd + TLS, user AWS) stand in for ECR registries:
//   containerd routes <account>.dkr.ecr.<region>.amazonaws.com (and public.ecr.aws)
//   to them through hosts.toml. The plugin never talks to a registry.
// - Each provider name is a recording wrapper in front of the same binary: it
//   records request, answer and exit status; the plugin itself is untouched.
//
// Providers (one kubelet config):
//   ecr-credential-provider            *.dkr.ecr.us-east-1…, *.dkr.ecr.us-west-2…   static keys (non-SA)
//   ecr-credential-provider-sa         *.dkr.ecr.eu-west-1…     KEP-4412, audience STS accepts
//   ecr-credential-provider-wrong-aud  *.dkr.ecr.eu-central-1…  KEP-4412, audience STS refuses
// The fake ECR's tokens live 12h, except in us-west-2 (24s) for the refresh case,
// where every new token also rotates that registry's password (the old token dies).
//
// Every case states its prediction before its pods run: the matching oracle
// (src/matching) for which provider is exec'd, the cache model
// (src/model/credential-cache.ts) fed with the plugin's own recorded answer,
// the service-account model (src/model/service-account-token.ts) for SA mode,
// and the plugin's code (cited) for what it asks AWS.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { kubeApi, type KubeApi } from '../../src/cluster/api.ts';
import type { KubeTarget } from '../../src/cluster/kubectl.ts';
import { allowNodesTokenAudience } from '../../src/cluster/rbac.ts';
import { parseGoDuration } from '../../src/core/duration.ts';
import { cacheDir } from '../../src/core/paths.ts';
import { errorMessage } from '../../src/core/errors.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import { providersForImage } from '../../src/matching/providers.ts';
import { CredentialCacheModel } from '../../src/model/credential-cache.ts';
import { ServiceAccountTokenModel, type AudienceGrant, type PodState } from '../../src/model/service-account-token.ts';
import { ensureVendorPlugin } from '../../src/plugin/vendors/build.ts';
import { clusterOidc } from '../../src/plugin/vendors/cluster-oidc.ts';
import { ECR_PLUGIN, ECR_PLUGIN_VERSION, ECR_RECIPE, ECR_ROLE_ANNOTATION, ecrHost, ecrPluginEnv, ecrProvider, ecrRegionOf, ecrTokenAttributes } from '../../src/plugin/vendors/ecr.ts';
import { FakeAws, newIamUser, type FakeAwsRequest } from '../../src/plugin/vendors/fake-aws.ts';
import { installRecordingWrapper, readWrappedInvocations, redactWrapperLog, type WrappedInvocation } from '../../src/plugin/vendors/recording-wrapper.ts';
import type { Check, CheckResult, Evidence } from '../../src/report/model.ts';
import { kubeletEvidence, runPod, startLabRegistry, type LabRegistry, type PodRun } from '../../src/run/lab.ts';
import { judge, type Prediction } from '../../src/run/prediction.ts';
import type { PreparedSuite, Suite, SuiteRun, SuiteSetup } from '../../src/run/suite.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { ANSWER, CACHE, PULL, REFRESH, SA_ANNOTATION, SA_AUDIENCE, SA_PULL, SA_RBAC, UNMATCHED, VENDOR_ECR_CHECKS } from './checks.ts';

const ACCOUNT = '111122223333';
const OTHER_ACCOUNT = '444455556666';
const REGION = { static: 'us-east-1', refresh: 'us-west-2', sa: 'eu-west-1', wrongAud: 'eu-central-1' } as const;
const PROVIDER = { static: ECR_PLUGIN, sa: `${ECR_PLUGIN}-sa`, wrongAud: `${ECR_PLUGIN}-wrong-aud` } as const;
const TOKEN_LIFETIME_MS = 12 * 3600_000;
/** The refresh case's token: the plugin answers half (≈12s), long enough for a second pod, short enough to wait out. */
const REFRESH_LIFETIME_MS = 24_000;
const POD_TIMEOUT_MS = 60_000;
const NAMESPACE = 'default';
const MODELS = {
  oracle: 'matching oracle (src/matching)',
  cache: 'cache model (src/model/credential-cache.ts)',
  sa: 'service-account model (src/model/service-account-token.ts)',
  plugin: 'ecr-credential-provider v1.37.1 source (cmd/ecr-credential-provider/main.go)',
};

const image = (host: string, repo: string) => ({ ref: `${host}/${repo}:v1`, request: `${host}/${repo}` });

interface Fixture {
  id: string;
  main: LabRegistry;
  refresh: LabRegistry;
  fake: FakeAws;
  config: CredentialProviderConfig;
  logDir: string;
  audience: string;
  wrongAudience: string;
  roleArn: string;
  puller: string;
  bare: string;
  nodeUser: string;
}

export const vendorEcrSuite: Suite = {
  name: 'vendor-ecr',
  summary: 'the real ecr-credential-provider (cloud-provider-aws, unmodified) under the kubelet against fake ECR/STS on loopback: pull, matchImages, its cache answer, token refresh, and KEP-4412 mode (role annotation, node audience RBAC, STS audience)',
  checks: VENDOR_ECR_CHECKS,
  needsBuild: `ecr-credential-provider ${ECR_PLUGIN_VERSION} from the Go module proxy (k8s.io/cloud-provider-aws; built into <cache>/plugins on first use, about a minute with a warm Go cache)`,
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const id = randomBytes(3).toString('hex');
    let main: LabRegistry | undefined;
    let refresh: LabRegistry | undefined;
    let fake: FakeAws | undefined;
    const logDir = join(ctx.artifactsDir, 'plugin-invocations');
    const cleanup = async () => {
      await fake?.stop();
      await Promise.all([main?.stop(), refresh?.stop()]);
      main = refresh = fake = undefined;
      await redactWrapperLog(logDir, (t) => ctx.redactor.text(t));
    };
    try {
      const plugin = await ensureVendorPlugin(ECR_RECIPE, { version: ECR_PLUGIN_VERSION, cacheDir: cacheDir(ctx.processEnv), progress: ctx.progress, log: ctx.log });
      if (!plugin) throw new Error('ecr-credential-provider was neither cached nor built');
      [main, refresh] = await Promise.all([startLabRegistry(ctx, 'ecr', { username: 'AWS' }), startLabRegistry(ctx, 'ecr-refresh', { username: 'AWS' })]);
      await main.push('team/app');
      await main.push('team/other');
      await refresh.push('team/app');
      const user = newIamUser('kubelet-node', ACCOUNT);
      ctx.redactor.add(user.secretAccessKey);
      const roleArn = `arn:aws:iam::${ACCOUNT}:role/credprov-ecr-pull-${id}`;
      const puller = `ecr-puller-${id}`;
      const audience = `credprov-ecr-${id}`;
      const wrongAudience = `credprov-ecr-other-${id}`;
      const mainPassword = main.user.password;
      const refreshReg = refresh;
      fake = new FakeAws({
        users: [user],
        ecr: {
          // us-west-2 hands out a fresh password per token and makes the registry accept only it.
          async password({ region }) {
            if (region !== REGION.refresh) return mainPassword;
            const pw = randomBytes(18).toString('base64url');
            ctx.redactor.add(pw);
            await refreshReg.registry.users.rotate('AWS', pw);
            return pw;
          },
          lifetimeMs: (region) => (region === REGION.refresh ? REFRESH_LIFETIME_MS : TOKEN_LIFETIME_MS),
        },
        sts: { audiences: [audience], roles: [{ arn: roleArn, subjects: [`system:serviceaccount:${NAMESPACE}:${puller}`] }] },
        logFile: join(ctx.artifactsDir, 'fake-aws-requests.jsonl'),
      });
      const endpoints = await fake.start();
      const host = (region: string) => `*.dkr.ecr.${region}.amazonaws.com`;
      const config: CredentialProviderConfig = {
        apiVersion: 'kubelet.config.k8s.io/v1',
        kind: 'CredentialProviderConfig',
        providers: [
          ecrProvider({ name: PROVIDER.static, matchImages: [host(REGION.static), host(REGION.refresh)], env: ecrPluginEnv(endpoints, { staticKeys: user }) }),
          ecrProvider({ name: PROVIDER.sa, matchImages: [host(REGION.sa)], env: ecrPluginEnv(endpoints), tokenAttributes: ecrTokenAttributes(audience) }),
          ecrProvider({ name: PROVIDER.wrongAud, matchImages: [host(REGION.wrongAud)], env: ecrPluginEnv(endpoints), tokenAttributes: ecrTokenAttributes(wrongAudience) }),
        ],
      };
      const plugins: Record<string, string> = {};
      for (const name of Object.values(PROVIDER)) plugins[name] = await installRecordingWrapper({ binDir: join(ctx.artifactsDir, 'bin'), name, target: plugin.path, logDir });
      const f: Fixture = { id, main, refresh, fake, config, logDir, audience, wrongAudience, roleArn, puller, bare: `ecr-bare-${id}`, nodeUser: `arn:aws:iam::${ACCOUNT}:user/kubelet-node` };
      return {
        needs: ['installPlugins', 'hostRegistries'],
        spec: { credentialProvider: { plugins, config: config as unknown as Record<string, unknown> } },
        run: (run) => runEcr(run, f),
        cleanup,
      };
    } catch (err) {
      await cleanup();
      throw err;
    }
  },
};

/** What one pod did, with the plugin execs and AWS requests that happened meanwhile. */
interface Window {
  run: PodRun;
  createdAt: number;
  doneAt: number;
  execs: WrappedInvocation[];
  aws: FakeAwsRequest[];
}

const showExec = (i: WrappedInvocation) => `${i.provider}(${i.request.image ?? '?'}) exit ${i.exitCode ?? '?'}`;
const showAws = (r: FakeAwsRequest) => r.service === 'sts'
  ? `STS ${r.operation} ${r.sts?.roleArn ?? ''} aud=${JSON.stringify(r.sts?.tokenClaims?.aud ?? null)} → ${r.status}${r.error ? ` ${r.error.code}` : ''}`
  : `${r.service.toUpperCase()} ${r.region ?? '?'} by ${r.principal ?? r.accessKeyId ?? 'anonymous'} → ${r.status}${r.error ? ` ${r.error.code}` : ''}`;

async function runEcr(ctx: SuiteRun, f: Fixture): Promise<CheckResult[]> {
  const env = ctx.environment;
  // clusterOidc (src/plugin/vendors/) still reads the issuer through kubectl; the suite's own calls go through the API client.
  const admin: KubeTarget = { kubectl: env.kubectl, kubeconfig: env.kubeconfig };
  const api = await kubeApi(admin);
  const hosts = {
    static: ecrHost(ACCOUNT, REGION.static), other: ecrHost(OTHER_ACCOUNT, REGION.static), refresh: ecrHost(ACCOUNT, REGION.refresh),
    sa: ecrHost(ACCOUNT, REGION.sa), wrongAud: ecrHost(ACCOUNT, REGION.wrongAud), public: 'public.ecr.aws',
  };
  for (const h of [hosts.static, hosts.other, hosts.public, hosts.sa, hosts.wrongAud]) await f.main.serveAs(env, h);
  await f.refresh.serveAs(env, hosts.refresh);
  f.fake.trustOidc(await clusterOidc(admin));

  let seq = 0;
  const pod = async (label: string, ref: string, o: { serviceAccountName?: string } = {}): Promise<Window> => {
    const execsBefore = (await readWrappedInvocations(f.logDir)).length;
    const awsBefore = f.fake.requests().length;
    const createdAt = Date.now();
    const run = await runPod(env, { name: `ecr-${label}-${f.id}-${++seq}`, image: ref, pullPolicy: 'Always', timeoutMs: POD_TIMEOUT_MS, ...o });
    const doneAt = Date.now();
    return { run, createdAt, doneAt, execs: (await readWrappedInvocations(f.logDir)).slice(execsBefore), aws: f.fake.requests().slice(awsBefore) };
  };
  const windowEvidence = (w: Window[], label = ''): Evidence[] => [
    { kind: 'invocation', label: `plugin execs (recording wrapper, ${f.logDir})${label}`, data: w.flatMap((x) => x.execs).map((i) => ({ provider: i.provider, image: i.request.image, startedAt: i.startedAt, durationMs: i.durationMs, exitCode: i.exitCode, tokenClaims: i.request.tokenClaims, annotations: i.request.annotations, answer: i.response, stderr: i.exitCode ? i.stderr.slice(-600) : undefined })) },
    { kind: 'data', label: 'fake AWS requests (ECR, STS, anything else)', data: w.flatMap((x) => x.aws) },
    ...w.flatMap((x) => x.run.evidence),
  ];
  const pullShown = (r: PodRun) => (r.pull === 'success' ? 'pull success' : `pull failure (${r.failure ?? 'unknown'})`);
  const results: CheckResult[] = [];
  const attempt = async (checks: Check[], body: () => Promise<CheckResult[]>) => {
    try {
      results.push(...(await body()));
    } catch (err) {
      results.push(...checks.map((c) => harnessFailure(c, err)));
    }
  };

  // -- non-SA: pull, the plugin's answer, the kubelet's cache --
  const A = image(hosts.static, 'team/app');
  const A2 = image(hosts.static, 'team/other');
  const B = image(hosts.other, 'team/app');
  let first: Window | undefined;
  let answer: { cacheKeyType: string; cacheDurationMs?: number; cacheDuration?: string } | undefined;
  await attempt([PULL], async () => {
    const oracle = providersForImage(f.config, A.ref);
    const region = ecrRegionOf(hosts.static);
    const prediction: Prediction<{ invoked: string[]; ecr: string[]; pull: string }> = {
      value: { invoked: oracle.invoked, ecr: [`ECR ${region} by ${f.nodeUser} → 200`], pull: 'pull success' },
      model: `${MODELS.oracle} + ${MODELS.plugin}`,
      because: `${oracle.providers.filter((p) => p.invoked).map((p) => `${p.name} matches ${p.patterns.find((x) => x.result.match)?.pattern}`).join('; ')}; the plugin takes region ${region} from the host and signs GetAuthorizationToken with the static keys of its env`,
    };
    first = await pod('pull', A.ref);
    return [judge(PULL, {
      prediction,
      observed: { invoked: [...new Set(first.execs.map((i) => i.provider))], ecr: first.aws.map(showAws), pull: pullShown(first.run) },
      show: (v) => `exec'd ${v.invoked.join(', ') || 'nothing'}; ${v.ecr.join(', ') || 'no AWS call'}; ${v.pull}`,
      evidence: [...windowEvidence([first]), ...(first.run.pull === 'success' ? [] : await kubeletEvidence(env, [PROVIDER.static, hosts.static, 'credential provider']))],
    })];
  });

  await attempt([ANSWER], async () => {
    const inv = first?.execs.find((i) => i.provider === PROVIDER.static);
    const ecrCall = first?.aws.find((r) => r.service === 'ecr' && r.status === 200);
    if (!inv?.response || !ecrCall?.ecr || inv.endMs === undefined) throw new Error('no recorded answer or ECR token from the first pull (see ECR-PULL-VIA-PLUGIN)');
    const cacheDurationMs = inv.response.cacheDuration === undefined ? undefined : parseGoDuration(inv.response.cacheDuration);
    answer = { cacheKeyType: inv.response.cacheKeyType ?? '', ...(cacheDurationMs !== undefined ? { cacheDurationMs } : {}), ...(inv.response.cacheDuration ? { cacheDuration: inv.response.cacheDuration } : {}) };
    // getCacheDuration: (expiresAt.Unix() - now.Unix()) / 2 seconds, "now" somewhere inside the exec.
    const expires = Date.parse(ecrCall.ecr.expiresAt);
    const half = (at: number) => Math.trunc((Math.floor(expires / 1000) - Math.floor(at / 1000)) / 2);
    const range = [half(inv.endMs), half(inv.startMs)];
    const prediction: Prediction<{ cacheKeyType: string; cacheDurationS: number[] }> = {
      value: { cacheKeyType: 'Registry', cacheDurationS: range },
      model: MODELS.plugin,
      because: `the fake ECR's token expires at ${ecrCall.ecr.expiresAt} (${ecrCall.ecr.lifetimeS}s); the plugin answers Registry and half the remaining whole seconds, between ${range[0]}s and ${range[1]}s for an exec from ${new Date(inv.startMs).toISOString()} to ${new Date(inv.endMs).toISOString()}`,
    };
    const observed = { cacheKeyType: answer.cacheKeyType, cacheDurationS: [Math.round((cacheDurationMs ?? NaN) / 1000)] };
    return [judge(ANSWER, {
      prediction, observed, actor: 'ecr-credential-provider',
      agree: (p, o) => o.cacheKeyType === p.cacheKeyType && o.cacheDurationS[0]! >= p.cacheDurationS[0]! && o.cacheDurationS[0]! <= p.cacheDurationS[1]!,
      show: (v) => `cacheKeyType ${v.cacheKeyType}, cacheDuration ${v.cacheDurationS.length === 1 ? `${v.cacheDurationS[0]}s (${inv.response?.cacheDuration ?? 'absent'})` : `${v.cacheDurationS.join('–')}s`}`,
      evidence: [{ kind: 'data', label: 'the plugin\'s answer (password reduced to a hash) and the token it came from', data: { answer: inv.response, ecrAuthorizationData: ecrCall.ecr } }],
    })];
  });

  await attempt([CACHE], async () => {
    if (!answer || !first) throw new Error('no recorded answer from the first pull (see ECR-ANSWER-FROM-EXPIRY)');
    const t0 = first.execs[0]?.endMs ?? first.doneAt;
    const model = new CredentialCacheModel(parseGoDuration(f.config.providers[0]!.defaultCacheDuration) ?? 0);
    const plugin = { cacheKeyType: answer.cacheKeyType, ...(answer.cacheDurationMs !== undefined ? { cacheDurationMs: answer.cacheDurationMs } : {}) };
    const d0 = model.pull(A.request, 0, plugin);
    // The next pulls come within a minute; the entry lives for hours.
    const d1 = model.pull(A2.request, 60_000, plugin);
    const d2 = model.pull(B.request, 120_000, plugin);
    const label = { a: `first pull ${A.request}`, a2: `another repository on that registry (${A2.request})`, b: `another account's registry (${B.request})` };
    const prediction: Prediction<Array<{ pull: string; execs: number; result: string }>> = {
      value: [
        { pull: label.a, execs: 1, result: 'pull success' },
        { pull: label.a2, execs: d1.invoked ? 1 : 0, result: 'pull success' },
        { pull: label.b, execs: d2.invoked ? 1 : 0, result: 'pull success' },
      ],
      model: MODELS.cache,
      because: `with the plugin's own answer (cacheKeyType ${answer.cacheKeyType}, cacheDuration ${answer.cacheDuration ?? 'absent'}): first: ${d0.reason}; then: ${d1.reason}; then: ${d2.reason}`,
    };
    const w1 = await pod('cache-same-registry', A2.ref);
    const w2 = await pod('cache-other-registry', B.ref);
    const execs = (w: Window) => w.execs.filter((i) => i.provider === PROVIDER.static).length;
    const observed = [
      { pull: label.a, execs: first.execs.filter((i) => i.provider === PROVIDER.static).length, result: pullShown(first.run) },
      { pull: label.a2, execs: execs(w1), result: pullShown(w1.run) },
      { pull: label.b, execs: execs(w2), result: pullShown(w2.run) },
    ];
    const failed = [w1, w2].some((w) => w.run.pull !== 'success');
    const result = judge(CACHE, {
      prediction, observed,
      show: (v) => v.map((x) => `${x.pull}: ${x.execs === 0 ? 'cached' : `${x.execs} exec`}, ${x.result}`).join('; '),
      evidence: [{ kind: 'data', label: 'first exec answered at', data: new Date(t0).toISOString() }, ...windowEvidence([first, w1, w2]), ...(failed ? await kubeletEvidence(env, [PROVIDER.static, 'credential provider', 'Failed to pull']) : [])],
    });
    return [result];
  });

  await attempt([UNMATCHED], async () => {
    const U = image(hosts.public, 'team/app');
    const oracle = providersForImage(f.config, U.ref);
    const prediction: Prediction<{ invoked: string[]; awsRequests: number; pull: string }> = {
      value: { invoked: oracle.invoked, awsRequests: 0, pull: 'pull failure (unauthorized)' },
      model: MODELS.oracle,
      because: `${normalizeImage(U.ref).repository}: ${oracle.providers.map((p) => `${p.name}: ${p.patterns.map((x) => `${x.pattern} ${x.result.match ? 'matches' : `no (${x.result.reason})`}`).join(', ')}`).join('; ')}; so no plugin runs, no AWS call, and the registry refuses the anonymous pull`,
    };
    const w = await pod('unmatched', U.ref);
    return [judge(UNMATCHED, {
      prediction,
      observed: { invoked: [...new Set(w.execs.map((i) => i.provider))], awsRequests: w.aws.length, pull: pullShown(w.run) },
      show: (v) => `exec'd ${v.invoked.join(', ') || 'nothing'}, ${v.awsRequests} AWS request(s), ${v.pull}`,
      evidence: windowEvidence([w]),
    })];
  });

  // -- refresh: R1, R2 now; R3 once the plugin's cacheDuration has passed (SA cases run meanwhile) --
  const R = image(hosts.refresh, 'team/app');
  let refreshPart: { r1: Window; r2: Window; t0: number; durationMs: number; cacheDuration: string } | undefined;
  let refreshError: unknown;
  try {
    const r1 = await pod('refresh-1', R.ref);
    const inv = r1.execs.find((i) => i.provider === PROVIDER.static);
    const durationMs = inv?.response?.cacheDuration ? parseGoDuration(inv.response.cacheDuration) : undefined;
    if (!inv || inv.endMs === undefined || durationMs === undefined || r1.run.pull !== 'success') throw new Error(`the first pull of ${R.ref} did not exec the plugin and succeed (${r1.execs.map(showExec).join(', ') || 'no exec'}; ${pullShown(r1.run)})`);
    const r2 = await pod('refresh-2', R.ref);
    refreshPart = { r1, r2, t0: inv.endMs, durationMs, cacheDuration: inv.response!.cacheDuration! };
  } catch (err) {
    refreshError = err;
  }

  // -- SA mode --
  const SA = image(hosts.sa, 'team/app');
  const W = image(hosts.wrongAud, 'team/app');
  const grants: AudienceGrant[] = [];
  const grantNames: string[] = [];
  const behaviour = behaviourFor(env.kubeletVersion ?? env.kubeVersion);
  const saProvider = f.config.providers.find((p) => p.name === PROVIDER.sa)!;
  const wrongProvider = f.config.providers.find((p) => p.name === PROVIDER.wrongAud)!;
  const saModel = (p: typeof saProvider) => new ServiceAccountTokenModel({
    provider: { name: p.name, defaultCacheDurationMs: parseGoDuration(p.defaultCacheDuration) ?? 0, ...(p.tokenAttributes ? { tokenAttributes: p.tokenAttributes } : {}) },
    behaviour, gates: { kubelet: env.spec.featureGates.kubelet, apiserver: env.spec.featureGates.apiserver }, grants: [...grants],
  });
  const pluginAnswer = { cacheKeyType: 'Registry' as const, ...(answer?.cacheDurationMs !== undefined ? { cacheDurationMs: answer.cacheDurationMs } : {}), password: 'static' as const, registryAccepts: true };
  try {
    await api.apply([
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: f.puller, namespace: NAMESPACE, annotations: { [ECR_ROLE_ANNOTATION]: f.roleArn } } },
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: f.bare, namespace: NAMESPACE } },
    ]);
    const saState = async (name: string) => {
      const { metadata } = await api.core.readNamespacedServiceAccount({ name, namespace: NAMESPACE });
      return { name, uid: metadata?.uid ?? '', annotations: metadata?.annotations ?? {} };
    };
    const podState = async (sa: string, label: string): Promise<PodState> => ({ namespace: NAMESPACE, name: label, uid: '(assigned at creation)', serviceAccount: await saState(sa) });
    type SaSeen = { invoked: boolean; sts: string[]; pull: string };
    const showSa = (v: SaSeen) => `${v.invoked ? 'plugin exec\'d' : 'plugin not exec\'d'}, ${v.sts.join(', ') || 'no STS call'}, ${v.pull}`;
    const saObserved = (w: Window, provider: string): SaSeen => ({
      invoked: w.execs.some((i) => i.provider === provider),
      sts: w.aws.filter((r) => r.service === 'sts').map(showAws),
      pull: pullShown(w.run),
    });

    await attempt([SA_ANNOTATION], async () => {
      const p = saModel(saProvider).pull(await podState(f.bare, 'bare'), SA.request, pluginAnswer);
      const prediction: Prediction<SaSeen> = { value: { invoked: p.invoked, sts: [], pull: `pull ${p.pull}${p.pull === 'failure' ? ' (unauthorized)' : ''}` }, model: MODELS.sa, because: p.because };
      const w = await pod('sa-no-annotation', SA.ref, { serviceAccountName: f.bare });
      return [judge(SA_ANNOTATION, {
        prediction, observed: saObserved(w, PROVIDER.sa), show: showSa,
        evidence: [...windowEvidence([w]), ...(await kubeletEvidence(env, [PROVIDER.sa, ECR_ROLE_ANNOTATION, f.bare]))],
      })];
    });

    let granted: Window | undefined;
    await attempt([SA_RBAC], async () => {
      if (await nodeMayRequestAudience(api, env.nodeName, f.audience, f.puller)) throw new Error(`RBAC already grants nodes audience ${f.audience}: cannot test the refusal`);
      const without = saModel(saProvider).pull(await podState(f.puller, 'no-rbac'), SA.request, pluginAnswer);
      const w1 = await pod('sa-no-rbac', SA.ref, { serviceAccountName: f.puller });
      // Only this run's audience: an environment that is reused keeps older runs' lines in its kubelet log.
      const excerpt = await kubeletEvidence(env, [f.audience]);
      for (const a of [f.audience, f.wrongAudience]) {
        grantNames.push(await allowNodesTokenAudience(admin, a));
        grants.push({ audience: a });
      }
      for (const a of [f.audience, f.wrongAudience]) await waitFor(() => nodeMayRequestAudience(api, env.nodeName, a, f.puller), 20_000, `RBAC grant of audience ${a} to take effect`);
      const withGrant = saModel(saProvider).pull(await podState(f.puller, 'rbac'), SA.request, pluginAnswer);
      granted = await pod('sa-rbac', SA.ref, { serviceAccountName: f.puller });
      const row = (p: typeof without) => ({ tokenDenied: p.tokenDenied, invoked: p.invoked, pull: `pull ${p.pull}` });
      const observedRow = (w: Window, denied: boolean) => ({ tokenDenied: denied, invoked: w.execs.some((i) => i.provider === PROVIDER.sa), pull: `pull ${w.run.pull}` });
      // The kubelet logs NodeRestriction's refusal of its TokenRequest ("Failed to provide credentials for image ...
      // failed to get service account token: ... forbidden ...") naming this run's audience.
      const denied = excerpt.some((e) => e.kind === 'log' && e.text.split('\n').some((l) => l.includes(f.audience) && /forbidden/.test(l) && l.includes(PROVIDER.sa)));
      return [judge(SA_RBAC, {
        prediction: { value: { withoutGrant: row(without), withGrant: row(withGrant) }, model: MODELS.sa, because: `without: ${without.because}; with: ${withGrant.because}` },
        observed: { withoutGrant: observedRow(w1, denied), withGrant: observedRow(granted, false) },
        show: (v) => `without the grant: token ${v.withoutGrant.tokenDenied ? 'refused' : 'not refused'}, plugin ${v.withoutGrant.invoked ? 'exec\'d' : 'not exec\'d'}, ${v.withoutGrant.pull}; with it: plugin ${v.withGrant.invoked ? 'exec\'d' : 'not exec\'d'}, ${v.withGrant.pull}`,
        evidence: [...windowEvidence([w1], ' without the grant'), ...excerpt.map((e) => ({ ...e, label: `kubelet log excerpt: the token request without the grant (${e.label})` })), ...windowEvidence([granted], ' with the grant')],
      })];
    });

    await attempt([SA_PULL], async () => {
      if (!granted) throw new Error('the pull with the RBAC grant did not run (see ECR-SA-NODE-AUDIENCE-RBAC)');
      const p = saModel(saProvider).pull(await podState(f.puller, 'rbac'), SA.request, pluginAnswer);
      const roleName = f.roleArn.split('/').pop();
      const prediction: Prediction<{ invoked: boolean; tokenAud: string[]; annotations: Record<string, string>; aws: string[]; pull: string }> = {
        value: {
          invoked: p.invoked, tokenAud: [f.audience], annotations: p.annotations ?? {},
          aws: [`STS AssumeRoleWithWebIdentity ${f.roleArn} aud=${JSON.stringify([f.audience])} → 200`, `ECR ${REGION.sa} by arn:aws:sts::${ACCOUNT}:assumed-role/${roleName}/ecr-credential-provider → 200`],
          pull: `pull ${p.pull}`,
        },
        model: `${MODELS.sa} + ${MODELS.plugin}`,
        because: `${p.because}; the plugin reads the role from ${ECR_ROLE_ANNOTATION}, assumes it with the token (session ecr-credential-provider) and signs GetAuthorizationToken for ${REGION.sa} with the session`,
      };
      const inv = granted.execs.find((i) => i.provider === PROVIDER.sa);
      return [judge(SA_PULL, {
        prediction,
        observed: { invoked: !!inv, tokenAud: [inv?.request.tokenClaims?.aud ?? []].flat(), annotations: inv?.request.annotations ?? {}, aws: granted.aws.map(showAws), pull: pullShown(granted.run) },
        show: (v) => `${v.invoked ? `exec'd with a token for ${JSON.stringify(v.tokenAud)}` : 'not exec\'d'}; ${v.aws.join(', ') || 'no AWS call'}; ${v.pull}`,
        evidence: [{ kind: 'data', label: 'the token the kubelet sent (claims) and what STS made of it', data: { claims: inv?.request.tokenClaims, sts: granted.aws.filter((r) => r.service === 'sts') } }, ...windowEvidence([granted])],
      })];
    });

    await attempt([SA_AUDIENCE], async () => {
      const p = saModel(wrongProvider).pull(await podState(f.puller, 'wrong-aud'), W.request, { ...pluginAnswer, registryAccepts: false });
      const prediction: Prediction<{ invoked: boolean; tokenAud: string[]; aws: string[]; pluginExit: string; pull: string }> = {
        value: { invoked: p.invoked, tokenAud: [f.wrongAudience], aws: [`STS AssumeRoleWithWebIdentity ${f.roleArn} aud=${JSON.stringify([f.wrongAudience])} → 400 InvalidIdentityToken`], pluginExit: 'non-zero', pull: 'pull failure (unauthorized)' },
        model: `${MODELS.sa} + ${MODELS.plugin}`,
        because: `${p.because.replace(/; stored under .*$/, '')}; STS (like an IAM OIDC provider) accepts only audience ${f.audience}, so AssumeRoleWithWebIdentity fails, GetAuthorizationToken is never signed, the plugin exits non-zero and the kubelet pulls without its credentials`,
      };
      const w = await pod('sa-wrong-aud', W.ref, { serviceAccountName: f.puller });
      const inv = w.execs.find((i) => i.provider === PROVIDER.wrongAud);
      return [judge(SA_AUDIENCE, {
        prediction,
        // A failed pull is retried (and the plugin, having cached nothing, exec'd again) on the pod's next sync: the same call may repeat.
        observed: { invoked: !!inv, tokenAud: [inv?.request.tokenClaims?.aud ?? []].flat(), aws: [...new Set(w.aws.map(showAws))], pluginExit: inv?.exitCode === undefined ? 'none' : inv.exitCode === 0 ? '0' : 'non-zero', pull: pullShown(w.run) },
        show: (v) => `${v.invoked ? `exec'd with a token for ${JSON.stringify(v.tokenAud)}` : 'not exec\'d'}; ${v.aws.join(', ') || 'no AWS call'}; plugin exit ${v.pluginExit}; ${v.pull}`,
        evidence: [...windowEvidence([w]), ...(await kubeletEvidence(env, [PROVIDER.wrongAud, 'InvalidIdentityToken']))],
      })];
    });
  } finally {
    for (const name of [f.puller, f.bare]) await api.core.deleteNamespacedServiceAccount({ name, namespace: NAMESPACE }).catch(() => undefined);
    for (const name of grantNames) {
      await api.rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
      await api.rbac.deleteClusterRole({ name }).catch(() => undefined);
    }
  }

  await attempt([REFRESH], async () => {
    if (!refreshPart) throw refreshError ?? new Error('the refresh case did not start');
    const { r1, r2, t0, durationMs } = refreshPart;
    const plugin = { cacheKeyType: 'Registry', cacheDurationMs: durationMs };
    const planned = (m: CredentialCacheModel, atMs: number[]) => atMs.map((at) => m.pull(R.request, at, plugin));
    // Planned: R2 right after R1 (its lookup happened by its outcome), R3 1.5s after the entry's expiry.
    const r3At = t0 + durationMs + 1500;
    const plan = planned(new CredentialCacheModel(0), [0, r2.doneAt - t0, r3At - t0]);
    const prediction: Prediction<{ execs: number[]; ecrTokens: number; pulls: string[] }> = {
      value: { execs: plan.map((d) => (d.invoked ? 1 : 0)), ecrTokens: plan.filter((d) => d.invoked).length, pulls: ['pull success', 'pull success', 'pull success'] },
      model: `${MODELS.cache} + ${MODELS.plugin}`,
      because: `the fake ECR's ${REFRESH_LIFETIME_MS / 1000}s token made the plugin answer cacheDuration ${refreshPart.cacheDuration}: ${plan.map((d, i) => `pull ${i + 1}: ${d.invoked ? 'exec' : 'hit'} (${d.reason})`).join('; ')}; each exec fetches a new token, and the registry accepts only the newest`,
    };
    const wait = r3At - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const r3 = await pod('refresh-3', R.ref);
    const windows = [r1, r2, r3];
    const execs = windows.map((w) => w.execs.filter((i) => i.provider === PROVIDER.static).length);
    const ecrTokens = windows.flatMap((w) => w.aws).filter((r) => r.service === 'ecr' && r.region === REGION.refresh && r.status === 200);
    const observed = { execs, ecrTokens: ecrTokens.length, pulls: windows.map((w) => pullShown(w.run)) };
    // R2's lookup must have been inside the entry's life for the "hit" to be the prediction; else the schedule slipped.
    const replay = planned(new CredentialCacheModel(0), [0, r2.createdAt - t0, r3.createdAt - t0]).map((d) => (d.invoked ? 1 : 0));
    const result = judge(REFRESH, {
      prediction, observed,
      show: (v) => `execs per pull ${v.execs.join(', ')}; ${v.ecrTokens} ECR token(s) issued; ${v.pulls.join(', ')}`,
      evidence: [
        { kind: 'data', label: 'schedule (ms after the first exec answered)', data: windows.map((w, i) => ({ pull: i + 1, createdMs: w.createdAt - t0, doneMs: w.doneAt - t0 })) },
        { kind: 'data', label: 'ECR tokens issued in us-west-2 (each rotated the registry password)', data: ecrTokens.map((r) => ({ time: r.time, expiresAt: r.ecr?.expiresAt, passwordSha256: r.ecr?.passwordSha256 })) },
        ...windowEvidence(windows),
      ],
    });
    if (result.status === 'failed' && replay.join() !== prediction.value.execs.join()) return [{ ...result, cause: 'harness', message: `schedule slipped (pods created at ${windows.map((w) => `+${w.createdAt - t0}ms`).join(', ')} of a ${durationMs}ms entry): ${result.message}` }];
    return [result];
  });

  const order = new Map(VENDOR_ECR_CHECKS.map((c, i) => [c.id, i]));
  return results.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

/** Would NodeRestriction's SubjectAccessReview let the node request a token for `audience` for this SA? */
async function nodeMayRequestAudience(api: KubeApi, node: string, audience: string, serviceAccount: string): Promise<boolean> {
  const out = await api.authorization.createSubjectAccessReview({
    body: {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
      spec: { user: `system:node:${node}`, groups: ['system:nodes', 'system:authenticated'], resourceAttributes: { verb: 'request-serviceaccounts-token-audience', group: '', resource: audience, name: serviceAccount, namespace: NAMESPACE } },
    },
  });
  return out.status?.allowed === true;
}

async function waitFor(cond: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function harnessFailure(check: Check, err: unknown): CheckResult {
  return { ...check, status: 'failed', cause: 'harness', message: `harness error: ${errorMessage(err)}`, evidence: [], startedAt: new Date().toISOString(), durationMs: 0 };
}

