// The service-account-token suite: KEP-4412 on the real kubelet and API
// server. ONE kubelet config holds a provider per question (each matching its
// own <x>.sa.test host, all routed through containerd hosts.toml), so the
// kubelet restarts once and the cases run side by side:
// - an htpasswd lab registry stands behind most hosts (the fakes answer its password);
// - an exchange registry (token auth) stands behind echosa.sa.test and
//   xchg.sa.test: its token server takes an SA token as the password and
//   validates it offline (JWKS from OIDC discovery) and online (TokenReview),
//   then maps the SA to repositories (registry/sa-token-auth.ts).
// A fresh namespace per run holds the service accounts; RBAC grants the node
// the audiences a case needs (one is left ungranted, one narrowed by
// resourceNames, one granted by a namespaced Role). Every case states its
// prediction from the model (src/model/service-account-token.ts) and the
// version table before its pods exist.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { Auth } from '../../registry/auth.ts';
import { busyboxImage } from '../../registry/image/test-images.ts';
import { processProvider } from '../../registry/process.ts';
import type { StartedRegistry } from '../../registry/provider.ts';
import { EXCHANGE_USERNAME, ServiceAccountTokenAuth, type ServiceAccountIdentity, type Validation } from '../../registry/sa-token-auth.ts';
import { grantedAccess } from '../../registry/token-server.ts';
import type { TokenAttributes } from '../../src/api/credentialprovider/types.ts';
import { kubeApi } from '../../src/cluster/api.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { allowNodesTokenAudience } from '../../src/cluster/rbac.ts';
import { errorMessage } from '../../src/core/errors.ts';
import type { Logger } from '../../src/core/logger.ts';
import { predictToken, predictTokenValidity, ServiceAccountTokenModel, type AudienceGrant, type PluginAnswer, type PodState, type PullPrediction, type ServiceAccountState } from '../../src/model/service-account-token.ts';
import type { AccessRule } from '../../registry/auth.ts';
import type { FakeInvocation } from '../../src/plugin/fake-provider.ts';
import { skipped } from '../../src/report/checks.ts';
import type { Check, CheckResult, Evidence } from '../../src/report/model.ts';
import { answer, prepareFleet, startLabRegistry, type Fleet, type FleetMember, type LabRegistry } from '../../src/run/lab.ts';
import { deletePod } from '../../src/run/pods.ts';
import { judge, type Prediction } from '../../src/run/prediction.ts';
import type { PreparedSuite, Suite, SuiteRun, SuiteSetup } from '../../src/run/suite.ts';
import { behaviourFor, type KubeBehaviour } from '../../src/versions/table.ts';
import {
  ANNOTATIONS_PASSED, AUDIENCE_DENIED, AUDIENCE_RESOURCE_NAMES, CACHE_SERVICE_ACCOUNT, CACHE_TOKEN, EXCHANGE_ACCESS, EXCHANGE_REVOKED,
  REQUIRE_SA_FALSE, REQUIRE_SA_TRUE, REQUIRED_ANNOTATION_MISSING, SA_TOKEN_CHECKS, TOKEN_AS_PASSWORD, TOKEN_CLAIMS,
} from './checks.ts';
import {
  clusterIdentity, createSaPod, errText, kubeletLines, nodeMayRequestAudience, observe, poll, removeStaticPod, sleep, target, writeStaticPod,
  type Observed, type Ran, type SaPod,
} from './cluster.ts';

const MODEL = 'service-account-token model (src/model/service-account-token.ts: plugin.go v1.37.1) + version table';
const DOMAIN = 'sa.test';
const POD_MS = 75_000;
const ROLE = 'credprov.test/role';
const TEAM = 'credprov.test/team';
const ABSENT = 'credprov.test/absent';
/** The cache cases' answers live far longer than the suite. */
const CACHE_MS = 5 * 60_000;

type RegistryName = 'lab' | 'exchange';

interface Plan {
  name: string;
  /** Images on `<label>.sa.test`. */
  label: string;
  tokenAttributes: TokenAttributes;
  registry: RegistryName;
  /** `token`: the answer's password is the request's SA token (username EXCHANGE_USERNAME). */
  password: 'static' | 'token';
  cacheDurationMs: number;
  capture?: boolean;
}

const hostOf = (p: Plan) => `${p.label}.${DOMAIN}`;
const labImage = (p: Plan) => `${hostOf(p)}/sa/${p.label}:v1`;
const xImage = (p: Plan, team: string) => `${hostOf(p)}/${team}/app:v1`;
/** What the kubelet asks the plugin for: the image without its tag. */
const requestOf = (ref: string) => ref.replace(/:[^/:]+$/, '');

function plans(id: string) {
  const aud = {
    main: `credprov-sa-main-${id}`,
    annot: `credprov-sa-annot-${id}`,
    none: `credprov-sa-none-${id}`,
    named: `credprov-sa-named-${id}`,
    registry: `credprov-sa-registry-${id}`,
  };
  const ta = (audience: string, cacheType: 'Token' | 'ServiceAccount', requireServiceAccount: boolean, more: Partial<TokenAttributes> = {}): TokenAttributes =>
    ({ serviceAccountTokenAudience: audience, cacheType, requireServiceAccount, ...more });
  const plan = (name: string, label: string, t: TokenAttributes, o: Partial<Plan> = {}): Plan =>
    ({ name, label, tokenAttributes: t, registry: 'lab', password: 'static', cacheDurationMs: 0, ...o });
  const P = {
    claims: plan('sa-claims', 'claims', ta(aud.main, 'ServiceAccount', true), { capture: true }),
    annot: plan('sa-annot', 'annot', ta(aud.annot, 'ServiceAccount', true, { requiredServiceAccountAnnotationKeys: [ROLE], optionalServiceAccountAnnotationKeys: [TEAM, ABSENT] })),
    optional: plan('sa-optional', 'optional', ta(aud.main, 'ServiceAccount', false)),
    required: plan('sa-required', 'required', ta(aud.main, 'ServiceAccount', true)),
    cacheSa: plan('sa-cache-sa', 'cachesa', ta(aud.main, 'ServiceAccount', true), { cacheDurationMs: CACHE_MS }),
    cacheToken: plan('sa-cache-token', 'cachetok', ta(aud.main, 'Token', true), { cacheDurationMs: CACHE_MS }),
    audNone: plan('sa-aud-none', 'audnone', ta(aud.none, 'ServiceAccount', true)),
    audNamed: plan('sa-aud-named', 'audnamed', ta(aud.named, 'ServiceAccount', true)),
    echo: plan('sa-echo', 'echosa', ta(aud.registry, 'ServiceAccount', true), { registry: 'exchange', password: 'token' }),
    exchange: plan('sa-exchange', 'xchg', ta(aud.registry, 'Token', true), { registry: 'exchange', password: 'token', capture: true }),
  };
  return { aud, P };
}

type Plans = ReturnType<typeof plans>;

export const serviceAccountTokenSuite: Suite = {
  name: 'service-account-token',
  summary: 'KEP-4412 on the real kubelet: the token itself (claims, JWKS signature, lifetime), annotations, requireServiceAccount with static pods, cacheType Token vs ServiceAccount, node audience RBAC, the token as a password, and a real token exchange with revocation',
  checks: SA_TOKEN_CHECKS,
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const id = randomBytes(3).toString('hex');
    const { aud, P } = plans(id);
    let lab: LabRegistry | undefined;
    let xreg: StartedRegistry | undefined;
    let fleet: Fleet | undefined;
    let tokensDir: string | undefined;
    const staticDir = join(ctx.artifactsDir, 'static-pods');
    const tokenServerLines: string[] = [];
    const live: { env?: Environment; namespace?: string; clusterRbac: string[]; statics: string[]; routes: string[] } = { clusterRbac: [], statics: [], routes: [] };
    const cleanup = async () => {
      for (const s of live.statics.splice(0)) await removeStaticPod(staticDir, s);
      if (live.env) {
        const api = await kubeApi(live.env).catch(() => undefined);
        // Deletions are not awaited to completion (a namespace takes its time), and an object already gone is fine.
        if (live.namespace) await api?.core.deleteNamespace({ name: live.namespace }).catch(() => {});
        for (const name of live.clusterRbac.splice(0)) {
          await api?.rbac.deleteClusterRoleBinding({ name }).catch(() => {});
          await api?.rbac.deleteClusterRole({ name }).catch(() => {});
        }
      }
      live.namespace = undefined;
      if (tokensDir) await rm(tokensDir, { recursive: true, force: true });
      tokensDir = undefined;
      for (const [reg, file] of [[lab?.registry, 'registry.log'], [xreg, 'exchange-registry.log']] as const) {
        const text = reg ? await readFile(reg.logFile, 'utf8').catch(() => undefined) : undefined;
        if (text !== undefined) await writeFile(join(ctx.artifactsDir, file), ctx.redactor.text(text)).catch(() => {});
      }
      if (tokenServerLines.length) await writeFile(join(ctx.artifactsDir, 'exchange-token-server.log'), ctx.redactor.text(`${tokenServerLines.join('\n')}\n`)).catch(() => {});
      await Promise.all(live.routes.splice(0).map((d) => rm(d, { recursive: true, force: true })));
      await lab?.stop();
      lab = undefined;
      await xreg?.stop();
      xreg = undefined;
      await fleet?.redactArtifacts();
    };
    try {
      tokensDir = await mkdtemp(join(tmpdir(), 'credprov-sa-tokens-'));
      await mkdir(staticDir, { recursive: true });
      lab = await startLabRegistry(ctx, 'satoken');
      for (const p of Object.values(P)) if (p.registry === 'lab') await lab.push(`sa/${p.label}`);
      // The token server logs each grant (account, scopes; never a password): kept as an artifact, not on the console.
      const xlog = quietLogger(ctx.log, tokenServerLines);
      xreg = await processProvider({ logger: xlog }).start({ name: `sax-${id}`, auth: Auth.token({ users: [] }), tls: true, logger: xlog, progress: ctx.progress });
      const image = await busyboxImage({ marker: `credprov-sa-exchange-${id}` });
      for (const team of ['team-a', 'team-b', 'team-c']) await xreg.push(image, { name: `${team}/app`, tag: 'v1' });
      const labUser = { username: lab.user.username, password: lab.user.password };
      const members: FleetMember[] = Object.values(P).map((p) => ({
        name: p.name,
        matchImages: [hostOf(p)],
        tokenAttributes: p.tokenAttributes,
        scenario: {
          ...answer([hostOf(p)], { [hostOf(p)]: p.password === 'token' ? { username: EXCHANGE_USERNAME, password: '{token}' } : labUser }, { cacheKeyType: 'Image', cacheDuration: `${p.cacheDurationMs / 1000}s` }),
          ...(p.capture ? { captureTokensDir: tokensDir } : {}),
        },
      }));
      fleet = await prepareFleet(ctx, members, { kubeletConfig: { staticPodPath: staticDir } });
      const f = fleet;
      const l = lab;
      const x = xreg;
      const td = tokensDir;
      return {
        // --v=5: the kubelet logs why it skipped a plugin (missing required annotation, no SA name) only at V5.
        spec: { ...f.spec, kubelet: { ...f.spec.kubelet, extraArgs: ['--v=5'] } },
        needs: ['installPlugins', 'hostRegistries'],
        run: async (run) => {
          live.env = run.environment;
          live.namespace = `credprov-sa-${id}`;
          return runCases(run, { id, aud, P, lab: l, xreg: x, fleet: f, namespace: live.namespace, tokensDir: td, staticDir, live });
        },
        cleanup,
      };
    } catch (err) {
      await cleanup();
      throw err;
    }
  },
};

/** Debug and info lines into `lines`; warnings and errors also to `log`. */
function quietLogger(log: Logger, lines: string[]): Logger {
  const self: Logger = {
    debug: (m) => lines.push(`debug: ${m}`),
    info: (m) => lines.push(`info: ${m}`),
    warn: (m) => (lines.push(`warn: ${m}`), log.warn(m)),
    error: (m) => (lines.push(`error: ${m}`), log.error(m)),
    child: () => self,
  };
  return self;
}

interface Fixture {
  id: string;
  aud: Plans['aud'];
  P: Plans['P'];
  lab: LabRegistry;
  xreg: StartedRegistry;
  fleet: Fleet;
  namespace: string;
  tokensDir: string;
  staticDir: string;
  live: { clusterRbac: string[]; statics: string[]; routes: string[] };
}

/** The service accounts of the run; annotations as the cases need them. */
function serviceAccounts(): Record<string, Record<string, string>> {
  return {
    claims: {},
    annotated: { [ROLE]: 'puller', [TEAM]: 'blue', 'unlisted.credprov.test/note': 'not for the plugin' },
    unannotated: { [TEAM]: 'blue' },
    plain: {},
    'cache-1': {},
    'cache-2': {},
    'tok-1': {},
    'aud-none': {},
    'named-yes': {},
    'named-no': {},
    'team-a': {},
    'team-c': {},
  };
}

async function runCases(ctx: SuiteRun, f: Fixture): Promise<CheckResult[]> {
  const env = ctx.environment;
  const ns = f.namespace;
  const t = target(env);
  const api = await kubeApi(t);
  const { P, aud } = f;
  const behaviour: KubeBehaviour = behaviourFor(env.kubeletVersion ?? env.kubeVersion);
  const gates = { kubelet: env.spec.featureGates.kubelet, apiserver: env.spec.featureGates.apiserver };

  // Routing: every host to its registry.
  for (const p of Object.values(P)) {
    if (p.registry === 'lab') await f.lab.serveAs(env, hostOf(p));
    else if (env.containerd) f.live.routes.push(await f.xreg.serveAs(env.containerd.certsDir, hostOf(p)));
    else throw new Error(`environment ${env.name} has no containerd config path to route ${hostOf(p)} through`);
  }

  // The namespace, its service accounts, the audience grants.
  await api.apply([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'app.kubernetes.io/managed-by': 'credprov' } } }]);
  const saAnnotations = serviceAccounts();
  await api.apply(Object.entries(saAnnotations).map(([name, annotations]) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns, annotations } })));
  const sas = new Map<string, ServiceAccountState>();
  for (const { metadata: m } of (await api.core.listNamespacedServiceAccount({ namespace: ns })).items) {
    sas.set(m!.name!, { name: m!.name!, uid: m!.uid!, annotations: m!.annotations ?? {} });
  }
  const grants: AudienceGrant[] = [
    { audience: aud.main },
    { audience: aud.annot, namespace: ns },
    { audience: aud.named, serviceAccounts: ['named-yes'] },
    { audience: aud.registry },
  ];
  for (const g of grants) {
    const name = `credprov-sa-${g.audience.replace(/^credprov-sa-/, '')}`;
    await allowNodesTokenAudience(t, g.audience, { name, ...(g.namespace ? { namespace: g.namespace } : {}), ...(g.serviceAccounts ? { serviceAccounts: g.serviceAccounts } : {}) });
    if (!g.namespace) f.live.clusterRbac.push(name);
  }
  // RBAC reaches the authorizer through an informer: wait until every grant answers as the node.
  const sarProbes: Array<[string, string]> = [[aud.main, 'claims'], [aud.annot, 'annotated'], [aud.named, 'named-yes'], [aud.registry, 'team-a']];
  await poll('the audience grants to take effect', 30_000, async () => {
    const r = await Promise.all(sarProbes.map(([a, sa]) => nodeMayRequestAudience(t, env.nodeName, a, ns, sa)));
    return r.every((x) => x.allowed) ? true : undefined;
  });
  const sarEvidence = async (pairs: Array<[string, string]>): Promise<Evidence> => ({
    kind: 'data', label: `SubjectAccessReview as system:node:${env.nodeName} (verb request-serviceaccounts-token-audience, resource = audience, name = SA, namespace ${ns})`,
    data: await Promise.all(pairs.map(async ([a, sa]) => ({ audience: a, serviceAccount: sa, ...(await nodeMayRequestAudience(t, env.nodeName, a, ns, sa)) }))),
  });

  // The exchange: the token server validates SA tokens against this cluster.
  const access = (sa: Pick<ServiceAccountIdentity, 'namespace' | 'name'>): AccessRule[] =>
    (sa.namespace === ns && sa.name.startsWith('team-') ? [{ repository: `${sa.name}/*`, actions: ['pull'] }] : []);
  const exchange = new ServiceAccountTokenAuth({ cluster: clusterIdentity(t), audience: aud.registry, access });
  f.xreg.tokenServer!.useAuthenticator(exchange.authenticator());
  const registryAccepts = (sa: string, ref: string) =>
    grantedAccess({ access: access({ namespace: ns, name: sa }) }, [{ type: 'repository', name: requestOf(ref).split('/').slice(1).join('/'), actions: ['pull'] }]).length > 0;

  const models = new Map<string, ServiceAccountTokenModel>();
  const modelOf = (p: Plan) => {
    let m = models.get(p.name);
    if (!m) models.set(p.name, (m = new ServiceAccountTokenModel({ provider: { name: p.name, defaultCacheDurationMs: 0, tokenAttributes: p.tokenAttributes }, behaviour, gates, grants })));
    return m;
  };
  const podState = (name: string, sa?: string): PodState => ({ namespace: ns, name, uid: name, ...(sa ? { serviceAccount: sas.get(sa)! } : {}) });
  const answerOf = (p: Plan, accepts: boolean): PluginAnswer => ({ cacheKeyType: 'Image', cacheDurationMs: p.cacheDurationMs, password: p.password, registryAccepts: accepts });
  /** The model's prediction for pulls of `ref` by a pod (each pull in order; `twice`: two pulls). */
  const predict = (p: Plan, pod: string, sa: string | undefined, ref: string, o: { accepts?: boolean; pulls?: number } = {}): PullPrediction[] => {
    const m = modelOf(p);
    return Array.from({ length: o.pulls ?? 1 }, (_, i) => m.pull(podState(pod, sa), requestOf(ref), answerOf(p, o.accepts ?? true), i));
  };

  const invocations = async (p: Plan): Promise<FakeInvocation[]> => (await f.fleet.invocations().catch(() => [])).filter((i) => i.provider === p.name);
  const invocationEvidence = (label: string, inv: FakeInvocation[]): Evidence => ({
    kind: 'invocation', label,
    data: ctx.redactor.value(inv.map((i) => ({ time: i.time, provider: i.provider, image: i.image, tokenPresent: i.tokenPresent, tokenSha256: i.tokenSha256?.slice(0, 16), tokenAud: i.tokenAud, tokenSub: i.tokenSub, tokenPod: i.tokenPod, annotations: i.annotations, decidedBy: i.decidedBy, exitCode: i.response.exitCode }))),
  });
  const eventsOf = (r: Ran): Evidence => ({ kind: 'event', label: `events of pod ${ns}/${r.name}`, data: r.events });
  const logEvidence = (label: string, lines: string[]): Evidence[] => (lines.length ? [{ kind: 'log', label, file: join(env.logsDir, 'kubelet.log'), text: ctx.redactor.text(lines.join('\n')) }] : []);
  const onFailure = async (r: CheckResult, pods: string[]): Promise<CheckResult> => {
    if (r.status !== 'failed') return r;
    const lines = (await Promise.all(pods.map((p) => kubeletLines(env, [`${ns}/${p}`], 8)))).flat();
    return { ...r, evidence: [...r.evidence, ...logEvidence('kubelet log excerpt (the failing pods)', lines)] };
  };
  const run = async (p: SaPod): Promise<Ran> => {
    await createSaPod(env, ns, p);
    return observe(env, p.name, ns, POD_MS);
  };
  const podInvocations = (inv: FakeInvocation[], pod: string) => inv.filter((i) => i.tokenPod === pod);
  /** What an invocation showed, as the model predicts it. */
  const seen = (inv: FakeInvocation[]) => ({ invoked: inv.length > 0, tokenPresent: inv.some((i) => i.tokenPresent), annotations: inv[0]?.annotations });
  const showPull = (o: { invoked: boolean; tokenPresent: boolean; annotations?: Record<string, string> | undefined; pull: string }) =>
    `${o.invoked ? `invoked ${o.tokenPresent ? 'with' : 'without'} a token${o.annotations && Object.keys(o.annotations).length ? ` and annotations ${JSON.stringify(o.annotations)}` : ''}` : 'not invoked'}, pull ${o.pull}`;
  const expectOf = (pr: PullPrediction) => ({ invoked: pr.invoked, tokenPresent: pr.tokenPresent, annotations: pr.invoked ? pr.annotations : undefined, pull: pr.pull as Observed });

  const { metadata: nodeMeta } = await api.core.readNode({ name: env.nodeName });
  const node = { metadata: { name: nodeMeta!.name!, uid: nodeMeta!.uid! } };
  const cases: Array<[Check[], () => Promise<CheckResult[]>]> = [
    // 1. The token itself.
    [[TOKEN_CLAIMS], async () => {
      const startedAt = new Date();
      const ref = labImage(P.claims);
      const [pr] = predict(P.claims, 'claims', 'claims', ref);
      const discovery = await clusterIdentity(t).discovery();
      const created = await createSaPod(env, ns, { name: 'claims', image: ref, serviceAccount: 'claims' });
      const token = predictToken({ issuer: discovery.issuer, audience: aud.main, pod: { ...podState('claims', 'claims'), uid: created.metadata!.uid!, serviceAccount: sas.get('claims')! }, node: { name: node.metadata.name, uid: node.metadata.uid } });
      const prediction: Prediction<unknown> = {
        value: { invoked: pr!.invoked, tokenPresent: pr!.tokenPresent, pull: pr!.pull, signature: 'verified against /openid/v1/jwks', ...token },
        model: `${MODEL} + claims.go`,
        because: `${pr!.because}; the TokenRequest asks for audience ${aud.main} bound to the pod, expirationSeconds unset (default ${token.lifetimeSeconds}s); the issuer is the discovery document's`,
      };
      const ran = await observe(env, 'claims', ns, POD_MS);
      const inv = podInvocations(await invocations(P.claims), 'claims');
      const sha = inv.find((i) => i.tokenSha256)?.tokenSha256;
      const jwt = sha ? await readFile(join(f.tokensDir, `${sha}.jwt`), 'utf8').catch(() => undefined) : undefined;
      ctx.redactor.add(jwt);
      const verifier = new ServiceAccountTokenAuth({ cluster: clusterIdentity(t), audience: aud.main, access: () => [] });
      const offline = jwt ? await verifier.offline(jwt) : undefined;
      const claims = jwt ? decodeJwt(jwt) : undefined;
      const k = claims?.['kubernetes.io'] as { namespace?: string; serviceaccount?: unknown; pod?: unknown; node?: unknown } | undefined;
      const observed = {
        ...seen(inv), pull: ran.observed,
        signature: offline?.ok ? 'verified against /openid/v1/jwks' : `not verified: ${offline?.reason ?? 'no token captured'}`,
        iss: claims?.iss, aud: typeof claims?.aud === 'string' ? [claims.aud] : claims?.aud, sub: claims?.sub,
        kubernetes: k ? { namespace: k.namespace, serviceaccount: k.serviceaccount, pod: k.pod, node: k.node } : undefined,
        lifetimeSeconds: claims?.exp !== undefined && claims.iat !== undefined ? claims.exp - claims.iat : undefined,
      };
      const { annotations: _a, ...observedNoAnn } = observed;
      return [await onFailure(judge(TOKEN_CLAIMS, {
        prediction, observed: observedNoAnn, startedAt,
        show: (v) => { const o = v as typeof observedNoAnn; return `${showPull({ ...o, pull: String(o.pull) })}; token aud ${JSON.stringify(o.aud)}, sub ${o.sub}, bound to pod ${JSON.stringify(o.kubernetes?.pod)} on node ${JSON.stringify(o.kubernetes?.node)}, iss ${o.iss}, lifetime ${o.lifetimeSeconds}s, signature ${o.signature}`; },
        evidence: [
          eventsOf(ran), invocationEvidence(`invocations of ${P.claims.name}`, inv),
          { kind: 'data', label: 'the token\'s header and claims (never the token)', data: { header: offline ? { alg: offline.alg, kid: offline.kid } : undefined, claims } },
          { kind: 'data', label: 'OIDC discovery (/.well-known/openid-configuration)', data: discovery },
        ],
      }), ['claims'])];
    }],

    // 2. Annotations: passed, and a missing required one.
    [[ANNOTATIONS_PASSED, REQUIRED_ANNOTATION_MISSING], async () => {
      const startedAt = new Date();
      const ref = labImage(P.annot);
      const [yes] = predict(P.annot, 'annot-yes', 'annotated', ref);
      const [no] = predict(P.annot, 'annot-missing', 'unannotated', ref);
      const [ry, rn] = await Promise.all([run({ name: 'annot-yes', image: ref, serviceAccount: 'annotated' }), run({ name: 'annot-missing', image: ref, serviceAccount: 'unannotated' })]);
      await deletePod(env, 'annot-missing', ns);
      const inv = await invocations(P.annot);
      const invYes = podInvocations(inv, 'annot-yes');
      const invNo = inv.filter((i) => i.tokenPod !== 'annot-yes');
      const skipLines = await kubeletLines(env, [`${ns}/annot-missing`, 'required annotation']);
      const sa = (name: string): Evidence => ({ kind: 'data', label: `service account ${ns}/${name} annotations`, data: sas.get(name)?.annotations });
      return [
        await onFailure(judge(ANNOTATIONS_PASSED, {
          prediction: { value: expectOf(yes!), model: MODEL, because: yes!.because }, startedAt,
          observed: { ...seen(invYes), pull: ry.observed },
          show: showPull,
          evidence: [eventsOf(ry), invocationEvidence(`invocations of ${P.annot.name} for annot-yes`, invYes), sa('annotated'), { kind: 'data', label: 'tokenAttributes', data: P.annot.tokenAttributes }],
        }), ['annot-yes']),
        await onFailure(judge(REQUIRED_ANNOTATION_MISSING, {
          prediction: { value: expectOf(no!), model: MODEL, because: no!.because }, startedAt,
          observed: { ...seen(invNo), pull: rn.observed },
          show: showPull,
          evidence: [eventsOf(rn), invocationEvidence(`invocations of ${P.annot.name} other than annot-yes's`, invNo), sa('unannotated'), ...logEvidence('kubelet log (V5): why the plugin was skipped', skipLines)],
        }), ['annot-missing']),
      ];
    }],

    // 3. requireServiceAccount, with API pods and static pods.
    [[REQUIRE_SA_TRUE, REQUIRE_SA_FALSE], async () => {
      const startedAt = new Date();
      const statics = env.provider === 'local';
      const one = async (check: Check, p: Plan, prefix: string) => {
        const ref = labImage(p);
        const [api] = predict(p, `${prefix}-api`, 'plain', ref);
        const [stat] = statics ? predict(p, `${prefix}-static`, undefined, ref) : [];
        const apiRun = run({ name: `${prefix}-api`, image: ref, serviceAccount: 'plain' });
        let staticRun: Promise<Ran> | undefined;
        let mirror = '';
        if (statics) {
          f.live.statics.push(`${prefix}-static`);
          mirror = await writeStaticPod(env, f.staticDir, ns, { name: `${prefix}-static`, image: ref });
          staticRun = observe(env, mirror, ns, POD_MS + 30_000);
        }
        const [ra, rs] = await Promise.all([apiRun, staticRun]);
        const inv = await invocations(p);
        const invApi = podInvocations(inv, `${prefix}-api`);
        const invStatic = inv.filter((i) => !i.tokenPresent);
        const value = { apiPod: expectOf(api!), ...(stat ? { staticPod: expectOf(stat) } : {}) };
        const observed = { apiPod: { ...seen(invApi), pull: ra.observed }, ...(rs ? { staticPod: { ...seen(invStatic), pull: rs.observed } } : {}) };
        const skipLines = statics ? await kubeletLines(env, [`provider="${p.name}"`, `${ns}/${mirror}`]) : [];
        const r = judge(check, {
          prediction: { value, model: MODEL, because: `API pod: ${api!.because}${stat ? `; static pod: ${stat.because}` : ''}` }, startedAt,
          observed,
          show: (v) => `API pod (SA plain): ${showPull(v.apiPod)}${v.staticPod ? `; static pod ${mirror}: ${showPull(v.staticPod)}` : ''}`,
          evidence: [eventsOf(ra), ...(rs ? [eventsOf(rs)] : []), invocationEvidence(`invocations of ${p.name}`, inv), ...logEvidence(`kubelet log (V5) for the static pod and ${p.name}`, skipLines)],
        });
        await removeStaticPod(f.staticDir, `${prefix}-static`);
        const withNote = statics ? r : { ...r, message: `${r.message} (static pod part not run: provider ${env.provider} cannot run static pods)` };
        return onFailure(withNote, [`${prefix}-api`, mirror]);
      };
      return Promise.all([one(REQUIRE_SA_TRUE, P.required, 'req'), one(REQUIRE_SA_FALSE, P.optional, 'opt')]);
    }],

    // 4. Cache: ServiceAccount vs Token.
    [[CACHE_SERVICE_ACCOUNT, CACHE_TOKEN], async () => {
      const startedAt = new Date();
      const execs = (prs: PullPrediction[]) => prs.filter((x) => x.invoked).length;
      const saRef = labImage(P.cacheSa);
      const tokRef = labImage(P.cacheToken);
      // Planned order: the first pod pulls twice (init + main container), then the others.
      const saPred = { 'csa-1 (SA cache-1, two pulls)': predict(P.cacheSa, 'csa-1', 'cache-1', saRef, { pulls: 2 }), 'csa-2 (SA cache-1)': predict(P.cacheSa, 'csa-2', 'cache-1', saRef), 'csa-3 (SA cache-2)': predict(P.cacheSa, 'csa-3', 'cache-2', saRef) };
      const tokPred = { 'ctok-1 (SA tok-1, two pulls)': predict(P.cacheToken, 'ctok-1', 'tok-1', tokRef, { pulls: 2 }), 'ctok-2 (SA tok-1)': predict(P.cacheToken, 'ctok-2', 'tok-1', tokRef) };
      const value = (m: Record<string, PullPrediction[]>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, { execs: execs(v), pull: v.at(-1)!.pull as Observed }]));
      const because = (m: Record<string, PullPrediction[]>) => Object.entries(m).map(([k, v]) => `${k}: ${v.map((x) => x.because.split('; ').filter((s) => /cache|invoked|stored/.test(s)).join(', ')).join(' | ')}`).join('; ');
      const saSeq = (async () => {
        const first = await run({ name: 'csa-1', image: saRef, serviceAccount: 'cache-1', twice: true });
        const [second, third] = await Promise.all([run({ name: 'csa-2', image: saRef, serviceAccount: 'cache-1' }), run({ name: 'csa-3', image: saRef, serviceAccount: 'cache-2' })]);
        return [first, second, third];
      })();
      const tokSeq = (async () => {
        const first = await run({ name: 'ctok-1', image: tokRef, serviceAccount: 'tok-1', twice: true });
        const second = await run({ name: 'ctok-2', image: tokRef, serviceAccount: 'tok-1' });
        return [first, second];
      })();
      const [saRuns, tokRuns] = await Promise.all([saSeq, tokSeq]);
      const saInv = await invocations(P.cacheSa);
      const tokInv = await invocations(P.cacheToken);
      const obs = (keys: string[], runs: Ran[], inv: FakeInvocation[]) => Object.fromEntries(keys.map((k, i) => [k, { execs: podInvocations(inv, runs[i]!.name).length, pull: runs[i]!.observed }]));
      const show = (v: Record<string, { execs: number; pull: string }>) => Object.entries(v).map(([k, x]) => `${k}: ${x.execs} exec${x.execs === 1 ? '' : 's'}, pull ${x.pull}`).join('; ');
      return [
        await onFailure(judge(CACHE_SERVICE_ACCOUNT, {
          prediction: { value: value(saPred), model: MODEL, because: because(saPred) }, startedAt,
          observed: obs(Object.keys(saPred), saRuns, saInv), show,
          evidence: [...saRuns.map(eventsOf), invocationEvidence(`invocations of ${P.cacheSa.name}`, saInv)],
        }), saRuns.map((r) => r.name)),
        await onFailure(judge(CACHE_TOKEN, {
          prediction: { value: value(tokPred), model: MODEL, because: because(tokPred) }, startedAt,
          observed: obs(Object.keys(tokPred), tokRuns, tokInv), show,
          evidence: [...tokRuns.map(eventsOf), invocationEvidence(`invocations of ${P.cacheToken.name} (two pods, distinct tokens: see tokenSha256)`, tokInv)],
        }), tokRuns.map((r) => r.name)),
      ];
    }],

    // 5. Node audience restriction.
    [[AUDIENCE_DENIED, AUDIENCE_RESOURCE_NAMES], async () => {
      const startedAt = new Date();
      const noneRef = labImage(P.audNone);
      const namedRef = labImage(P.audNamed);
      const [none] = predict(P.audNone, 'aud-none', 'aud-none', noneRef);
      const [yes] = predict(P.audNamed, 'named-yes', 'named-yes', namedRef);
      const [no] = predict(P.audNamed, 'named-no', 'named-no', namedRef);
      const sar = await sarEvidence([[aud.none, 'aud-none'], [aud.named, 'named-yes'], [aud.named, 'named-no']]);
      const [rNone, rYes, rNo] = await Promise.all([
        run({ name: 'aud-none', image: noneRef, serviceAccount: 'aud-none' }),
        run({ name: 'named-yes', image: namedRef, serviceAccount: 'named-yes' }),
        run({ name: 'named-no', image: namedRef, serviceAccount: 'named-no' }),
      ]);
      await Promise.all(['aud-none', 'named-no'].map((n) => deletePod(env, n, ns)));
      const denial = async (pod: string) => {
        const lines = await kubeletLines(env, [`${ns}/${pod}`, 'is not authorized to request tokens for audience'], 2);
        return { lines, text: lines.length ? errText(lines.at(-1)!) : undefined };
      };
      const [dNone, dYes, dNo] = await Promise.all([denial('aud-none'), denial('named-yes'), denial('named-no')]);
      const noneInv = await invocations(P.audNone);
      const namedInv = await invocations(P.audNamed);
      const view = (pr: PullPrediction) => ({ tokenDenied: pr.tokenDenied, invoked: pr.invoked, pull: pr.pull as Observed });
      const obs = (d: { text?: string }, inv: FakeInvocation[], r: Ran) => ({ tokenDenied: !!d.text, invoked: inv.length > 0, pull: r.observed });
      const show1 = (v: { tokenDenied: boolean; invoked: boolean; pull: string }) => `token request ${v.tokenDenied ? 'denied' : 'not denied'}, plugin ${v.invoked ? 'invoked' : 'not invoked'}, pull ${v.pull}`;
      const denialEvidence = (label: string, d: { lines: string[]; text?: string }): Evidence[] => [
        ...(d.text ? [{ kind: 'text' as const, label: `the API server's denial (${label})`, text: d.text }] : []),
        ...logEvidence(`kubelet log: ${label}`, d.lines),
      ];
      const deniedMsg = (r: CheckResult, d: { text?: string }) => (r.status === 'passed' && d.text ? { ...r, message: `${r.message}; the API server said: ${d.text}` } : r);
      return [
        deniedMsg(await onFailure(judge(AUDIENCE_DENIED, {
          prediction: { value: view(none!), model: MODEL, because: none!.because }, startedAt,
          observed: obs(dNone, noneInv, rNone), show: show1,
          evidence: [eventsOf(rNone), invocationEvidence(`invocations of ${P.audNone.name}`, noneInv), ...denialEvidence('aud-none', dNone), sar],
        }), ['aud-none']), dNone),
        deniedMsg(await onFailure(judge(AUDIENCE_RESOURCE_NAMES, {
          prediction: { value: { 'named-yes': view(yes!), 'named-no': view(no!) }, model: MODEL, because: `named-yes: ${yes!.because}; named-no: ${no!.because}` }, startedAt,
          observed: { 'named-yes': obs(dYes, podInvocations(namedInv, 'named-yes'), rYes), 'named-no': obs(dNo, podInvocations(namedInv, 'named-no'), rNo) },
          show: (v) => `named-yes: ${show1(v['named-yes'])}; named-no: ${show1(v['named-no'])}`,
          evidence: [eventsOf(rYes), eventsOf(rNo), invocationEvidence(`invocations of ${P.audNamed.name}`, namedInv), ...denialEvidence('named-no', dNo), sar],
        }), ['named-yes', 'named-no']), dNo),
      ];
    }],

    // 6. The token returned as the password.
    [[TOKEN_AS_PASSWORD], async () => {
      const startedAt = new Date();
      const echoRef = xImage(P.echo, 'team-a');
      const tokRef = xImage(P.exchange, 'team-a');
      const [echo] = predict(P.echo, 'echo-sa', 'team-a', echoRef, { accepts: registryAccepts('team-a', echoRef) });
      const [tok] = predict(P.exchange, 'echo-token', 'team-a', tokRef, { accepts: registryAccepts('team-a', tokRef) });
      const view = (pr: PullPrediction) => ({ invoked: pr.invoked, responseRefused: pr.credentials === 'refused-token-as-password', pull: pr.pull as Observed });
      const [rEcho, rTok] = await Promise.all([run({ name: 'echo-sa', image: echoRef, serviceAccount: 'team-a' }), run({ name: 'echo-token', image: tokRef, serviceAccount: 'team-a' })]);
      await deletePod(env, 'echo-sa', ns);
      const refusal = async (pod: string) => kubeletLines(env, [`${ns}/${pod}`, 'returned the service account token as the password'], 2);
      const [lEcho, lTok] = await Promise.all([refusal('echo-sa'), refusal('echo-token')]);
      const echoInv = podInvocations(await invocations(P.echo), 'echo-sa');
      const tokInv = podInvocations(await invocations(P.exchange), 'echo-token');
      const r = judge(TOKEN_AS_PASSWORD, {
        prediction: {
          value: { cacheTypeServiceAccount: view(echo!), cacheTypeToken: view(tok!) },
          model: `${MODEL} (rejectsTokenAsPassword: ${behaviour.rejectsTokenAsPassword} for 1.${behaviour.minor})`,
          because: `ServiceAccount: ${echo!.because}; Token: ${tok!.because}`,
        },
        startedAt,
        observed: {
          cacheTypeServiceAccount: { invoked: echoInv.length > 0, responseRefused: lEcho.length > 0, pull: rEcho.observed },
          cacheTypeToken: { invoked: tokInv.length > 0, responseRefused: lTok.length > 0, pull: rTok.observed },
        },
        show: (v) => Object.entries(v).map(([k, x]) => `${k}: ${x.invoked ? 'invoked' : 'not invoked'}, response ${x.responseRefused ? 'refused' : 'accepted'}, pull ${x.pull}`).join('; '),
        evidence: [
          eventsOf(rEcho), eventsOf(rTok), invocationEvidence('invocations (password = {token})', [...echoInv, ...tokInv]),
          ...logEvidence('kubelet log: the refusal (cacheType ServiceAccount)', lEcho),
        ],
      });
      const text = lEcho.length ? errText(lEcho.at(-1)!) : undefined;
      return [await onFailure(r.status === 'passed' && text ? { ...r, message: `${r.message}; the kubelet logged: ${text}` } : r, ['echo-sa', 'echo-token'])];
    }],

    // 7. The exchange, then revocation.
    [[EXCHANGE_ACCESS, EXCHANGE_REVOKED], async () => {
      const startedAt = new Date();
      const pods = [
        { name: 'xa-own', sa: 'team-a', ref: xImage(P.exchange, 'team-a') },
        { name: 'xa-other', sa: 'team-a', ref: xImage(P.exchange, 'team-b') },
        { name: 'xc-own', sa: 'team-c', ref: xImage(P.exchange, 'team-c') },
      ];
      const pred = Object.fromEntries(pods.map((p) => [`${p.name} (SA ${p.sa} → ${requestOf(p.ref).split('/').slice(1).join('/')})`, predict(P.exchange, p.name, p.sa, p.ref, { accepts: registryAccepts(p.sa, p.ref) })[0]!]));
      const runs = await Promise.all(pods.map((p) => run({ name: p.name, image: p.ref, serviceAccount: p.sa })));
      await deletePod(env, 'xa-other', ns);
      const inv = await invocations(P.exchange);
      const shas = new Map(pods.map((p) => [p.name, podInvocations(inv, p.name).map((i) => i.tokenSha256!).filter(Boolean)]));
      const validationsOf = (pod: string) => exchange.validations.filter((v) => shas.get(pod)?.includes(v.tokenSha256));
      const summary = (vs: Validation[]) => vs.map((v) => ({ at: v.at, token: `sha256:${v.tokenSha256.slice(0, 16)}`, offline: v.offline.ok ? 'ok' : v.offline.reason, online: v.online ? (v.online.ok ? `ok (${v.online.username})` : v.online.reason) : 'not asked', granted: v.access }));
      const keys = Object.keys(pred);
      const observed = Object.fromEntries(keys.map((k, i) => {
        const vs = validationsOf(pods[i]!.name);
        return [k, { invoked: podInvocations(inv, pods[i]!.name).length > 0, tokenValidated: vs.length > 0 && vs.every((v) => v.ok), pull: runs[i]!.observed }];
      }));
      const value = Object.fromEntries(keys.map((k) => [k, { invoked: pred[k]!.invoked, tokenValidated: pred[k]!.invoked && pred[k]!.credentials === 'used', pull: pred[k]!.pull as Observed }]));
      const tokenRequests = f.xreg.tokenServer!.requests.filter((r) => r.account === EXCHANGE_USERNAME).map((r) => ({ method: r.method, scopes: r.scopes, status: r.status, granted: r.granted }));
      const access1 = await onFailure(judge(EXCHANGE_ACCESS, {
        prediction: { value, model: `${MODEL} + the exchange's access rules (team-X may pull team-X/*)`, because: keys.map((k) => `${k}: ${pred[k]!.because}`).join('; ') }, startedAt,
        observed,
        show: (v) => Object.entries(v).map(([k, x]) => `${k}: ${x.invoked ? 'invoked' : 'not invoked'}, token ${x.tokenValidated ? 'validated offline + TokenReview' : 'not validated'}, pull ${x.pull}`).join('; '),
        evidence: [
          ...runs.map(eventsOf), invocationEvidence(`invocations of ${P.exchange.name}`, inv),
          { kind: 'data', label: 'the token server\'s validations of these pods\' tokens (offline: JWKS signature, iss, aud, exp; online: TokenReview)', data: Object.fromEntries(pods.map((p) => [p.name, summary(validationsOf(p.name))])) },
          { kind: 'data', label: 'token requests with the exchange user (scopes asked, access granted)', data: tokenRequests },
        ],
      }), pods.map((p) => p.name));

      // Revocation: the tokens xa-own and xc-own got, after their pod / SA is deleted.
      const startedRevoke = new Date();
      const tokenOf = async (pod: string) => {
        const sha = shas.get(pod)?.[0];
        const jwt = sha ? await readFile(join(f.tokensDir, `${sha}.jwt`), 'utf8').catch(() => undefined) : undefined;
        ctx.redactor.add(jwt);
        return jwt;
      };
      const [ta, tc] = await Promise.all([tokenOf('xa-own'), tokenOf('xc-own')]);
      if (!ta || !tc) throw new Error(`no captured token for ${!ta ? 'xa-own' : 'xc-own'} (the plugin was not invoked with one)`);
      const verdict = (v: Validation) => ({ signature: v.offline.ok ? 'valid' as const : 'invalid' as const, tokenReview: v.online?.ok ? 'authenticated' as const : 'refused' as const });
      const expired = (jwt: string) => (decodeJwt(jwt).exp ?? 0) * 1000 < Date.now();
      const predRevoke = {
        'xa-own token, pod exists': predictTokenValidity({ expired: expired(ta), podExists: true, serviceAccountExists: true }),
        'xa-own token, pod deleted': predictTokenValidity({ expired: expired(ta), podExists: false, serviceAccountExists: true }),
        'xc-own token, SA team-c deleted': predictTokenValidity({ expired: expired(tc), podExists: true, serviceAccountExists: false }),
      };
      const before = await exchange.validate(ta);
      // Grace period 0 removes the pod from the API at once (neither it nor the SA has finalizers): gone when the calls return.
      await api.core.deleteNamespacedPod({ name: 'xa-own', namespace: ns, gracePeriodSeconds: 0 }).catch(() => {});
      await api.core.deleteNamespacedServiceAccount({ name: 'team-c', namespace: ns });
      // The API server reads pods and SAs through informers: allow it a moment to see the deletions.
      const settle = async (jwt: string) => {
        let v = await exchange.validate(jwt);
        for (let i = 0; i < 20 && v.online?.ok; i++) {
          await sleep(1000);
          v = await exchange.validate(jwt);
        }
        return v;
      };
      const [afterPod, afterSa] = await Promise.all([settle(ta), settle(tc)]);
      const validations = { 'xa-own token, pod exists': before, 'xa-own token, pod deleted': afterPod, 'xc-own token, SA team-c deleted': afterSa };
      const revoked = judge(EXCHANGE_REVOKED, {
        prediction: { value: Object.fromEntries(Object.entries(predRevoke).map(([k, v]) => [k, { signature: v.signature, tokenReview: v.tokenReview }])), model: 'service-account-token model (predictTokenValidity: claims.go validator)', because: Object.entries(predRevoke).map(([k, v]) => `${k}: ${v.because}`).join('; ') },
        startedAt: startedRevoke,
        observed: Object.fromEntries(Object.entries(validations).map(([k, v]) => [k, verdict(v)])),
        show: (v) => Object.entries(v).map(([k, x]) => `${k}: signature ${x.signature}, TokenReview ${x.tokenReview}`).join('; '),
        actor: 'the API server',
        evidence: [{ kind: 'data', label: 'offline and online verdicts (the exchange\'s validations)', data: Object.fromEntries(Object.entries(validations).map(([k, v]) => [k, { offline: v.offline, online: v.online }])) }],
      });
      const reasons = [afterPod.online?.reason, afterSa.online?.reason].filter(Boolean).join(' / ');
      return [access1, revoked.status === 'passed' && reasons ? { ...revoked, message: `${revoked.message}; TokenReview said: ${reasons}` } : revoked];
    }],
  ];

  const byId = new Map<string, CheckResult>();
  await Promise.all(cases.map(async ([checks, body]) => {
    try {
      for (const r of await body()) byId.set(r.id, r);
    } catch (err) {
      for (const c of checks) byId.set(c.id, { ...skipped(c, ''), status: 'failed', cause: 'harness', message: `harness error: ${errorMessage(err)}` });
    }
  }));
  return SA_TOKEN_CHECKS.map((c) => byId.get(c.id) ?? { ...skipped(c, ''), status: 'failed' as const, cause: 'harness' as const, message: 'harness error: the case did not report' });
}
