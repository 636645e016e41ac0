// The cache suite: how the kubelet caches a credential provider's answers.
// One provider per case, each matching its own host glob (*.<zone>.cache.test)
// so every case runs under ONE kubelet config and the cases run side by side.
// All hosts are routed to a lab registry through containerd hosts.toml; the
// rotation case has a registry of its own, since it changes the password.
//
// Every case computes its prediction from the cache model
// (src/model/credential-cache.ts) out of the same plan its pods then follow:
// which image, when (relative to the first exec's answer), and what the fake
// answers. After the pods ran, the model is replayed at the times the pods
// were really created: if that changes the prediction, the schedule slipped
// and the case is a harness failure, not a kubelet verdict.
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { durationMs } from '../../fixtures/fake-credential-provider/scenario.ts';
import { kubeApi } from '../../src/cluster/api.ts';
import { CredentialCacheModel, type PluginAnswer } from '../../src/model/credential-cache.ts';
import type { FakeInvocation } from '../../src/plugin/fake-provider.ts';
import type { Check, CheckResult, Evidence } from '../../src/report/model.ts';
import { answer, kubeletEvidence, prepareFleet, runPod, startLabRegistry, type Fleet, type FleetMember, type LabRegistry, type PodRun } from '../../src/run/lab.ts';
import { judge, type Prediction } from '../../src/run/prediction.ts';
import type { PreparedSuite, Suite, SuiteRun, SuiteSetup } from '../../src/run/suite.ts';
import {
  CACHE_CHECKS, DURATION_DEFAULT, DURATION_ZERO_DEFAULT, DURATION_ZERO_RESPONSE, EXPIRY, KEY_GLOBAL, KEY_IMAGE, KEY_REGISTRY, ROTATION, SINGLEFLIGHT,
} from './checks.ts';

const MODEL = 'cache model (src/model/credential-cache.ts)';
const DOMAIN = 'cache.test';
/** Planned gap between the key cases' pulls (they need only stay far inside the 5m entries). */
const KEY_SLOT_MS = 20_000;
/** Rotation: how long after the entry's expiry a pod may still take to pull (pod creation, sandbox, pull). */
const ROTATION_TOLERANCE_MS = 10_000;
const SINGLEFLIGHT_PODS = 3;
const POD_TIMEOUT_MS = 60_000;

type KeyType = 'Image' | 'Registry' | 'Global';

/** One provider of the fleet and what its fake answers. */
interface Plan {
  name: string;
  /** Its images live on `<x>.<zone>.cache.test`; the provider and its answer match `*.<zone>.cache.test`. */
  zone: string;
  defaultCacheDuration: string;
  cacheKeyType: KeyType;
  /** null: the response has no cacheDuration. */
  cacheDuration: string | null;
  delay?: string;
  registry: 'main' | 'rotation';
}

const plan = (name: string, zone: string, defaultCacheDuration: string, cacheKeyType: KeyType, cacheDuration: string | null, o: { delay?: string; registry?: Plan['registry'] } = {}): Plan =>
  ({ name: `cache-${name}`, zone, defaultCacheDuration, cacheKeyType, cacheDuration, ...(o.delay ? { delay: o.delay } : {}), registry: o.registry ?? 'main' });

// Durations: the key cases' 5m outlive the suite; the timed cases use 8s so a
// pod created at once after the first exec has its lookup (a second or two
// after creation, several on a loaded 2-core machine) well inside the entry's
// life, while the "after expiry" pull waits 2×8s; the rotation entry lives 20s.
const PLANS = {
  image: plan('image', 'img', '5m', 'Image', '5m'),
  registry: plan('registry', 'reg', '5m', 'Registry', '5m'),
  global: plan('global', 'glb', '5m', 'Global', '5m'),
  dflt: plan('default', 'dflt', '8s', 'Image', null),
  zeroResponse: plan('zero', 'zero', '5m', 'Image', '0s'),
  zeroDefault: plan('nodefault', 'nodflt', '0s', 'Image', null),
  expiry: plan('expiry', 'exp', '5m', 'Image', '8s'),
  rotation: plan('rotation', 'rot', '5m', 'Registry', '20s', { registry: 'rotation' }),
  singleflight: plan('singleflight', 'sf', '0s', 'Image', '0s', { delay: '3s' }),
};
const ALL_PLANS = Object.values(PLANS);

const glob = (p: Plan) => `*.${p.zone}.${DOMAIN}`;
const host = (p: Plan, label = 'a') => `${label}.${p.zone}.${DOMAIN}`;
/** What the plugin is asked for (repository without tag) and what the pod pulls. */
const image = (p: Plan, label: string, repo: string) => ({ request: `${host(p, label)}/${repo}`, ref: `${host(p, label)}/${repo}:v1` });
const modelAnswer = (p: Plan): PluginAnswer => ({ cacheKeyType: p.cacheKeyType, ...(p.cacheDuration === null ? {} : { cacheDurationMs: durationMs(p.cacheDuration) }) });
const newModel = (p: Plan) => new CredentialCacheModel(durationMs(p.defaultCacheDuration));
const describePlan = (p: Plan) =>
  `${p.name}: cacheKeyType ${p.cacheKeyType}, cacheDuration ${p.cacheDuration ?? 'absent'}, defaultCacheDuration ${p.defaultCacheDuration}${p.delay ? `, answers after ${p.delay}` : ''}`;

function scenarioFor(p: Plan, user: { username: string; password: string }): Record<string, unknown> {
  // The auth key is the provider's glob, so a Registry or Global entry stored
  // for one host also carries credentials the keyring matches to the others.
  return answer([glob(p)], { [glob(p)]: { username: user.username, password: user.password } }, { cacheKeyType: p.cacheKeyType, cacheDuration: p.cacheDuration, ...(p.delay ? { delay: p.delay } : {}) });
}

export const cacheSuite: Suite = {
  name: 'cache',
  summary: 'the kubelet\'s credential cache: cacheKeyType Image/Registry/Global, cacheDuration vs defaultCacheDuration and 0s, expiry, recovery after a password rotation, singleflight for concurrent pulls',
  checks: CACHE_CHECKS,
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const id = randomBytes(3).toString('hex');
    let main: LabRegistry | undefined;
    let rot: LabRegistry | undefined;
    let fleet: Fleet | undefined;
    const cleanup = async () => {
      await Promise.all([main?.stop(), rot?.stop()]);
      main = rot = undefined;
      await fleet?.redactArtifacts();
    };
    try {
      const started = await Promise.allSettled([startLabRegistry(ctx, 'cache'), startLabRegistry(ctx, 'cache-rot')]);
      if (started[0].status === 'fulfilled') main = started[0].value;
      if (started[1].status === 'fulfilled') rot = started[1].value;
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      if (!main || !rot) throw new Error('lab registries did not start');
      await main.push('cache/one');
      await main.push('cache/two');
      await rot.push('cache/one');
      const userOf = (p: Plan) => (p.registry === 'rotation' ? rot! : main!).user;
      const members: FleetMember[] = ALL_PLANS.map((p) => ({
        name: p.name, matchImages: [glob(p)], defaultCacheDuration: p.defaultCacheDuration, scenario: scenarioFor(p, userOf(p)),
      }));
      // serializeImagePulls stays true (the harness default): the credential
      // lookup runs in EnsureImageExists before the serial puller, so it does
      // not serialize plugin execs (CACHE-SINGLEFLIGHT shows it).
      fleet = await prepareFleet(ctx, members);
      const f: Fixture = { main, rot, fleet, id };
      return {
        needs: ['installPlugins', 'hostRegistries'],
        spec: fleet.spec,
        run: (run) => runCache(run, f),
        cleanup,
      };
    } catch (err) {
      await cleanup();
      throw err;
    }
  },
};

interface Fixture {
  main: LabRegistry;
  rot: LabRegistry;
  fleet: Fleet;
  id: string;
}

/** One pull as planned (for the model) and as done (for the verdict). */
interface Pull {
  label: string;
  request: string;
  ref: string;
  /** Planned time, relative to the case's origin. */
  atMs: number;
}

/** When a pull's credential lookup can have happened, ms after the case's origin. */
interface Window {
  fromMs: number;
  toMs: number;
}

interface PullSeen {
  label: string;
  /** Plugin execs of this provider attributed to the pull. */
  execs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const secs = (ms: number) => `${(Math.round(ms / 100) / 10).toFixed(1)}s`;
const showPulls = (v: PullSeen[]) => v.map((p) => `${p.label} → ${p.execs === 0 ? 'cached' : p.execs === 1 ? 'exec' : `${p.execs} execs`}`).join(', ');

async function runCache(ctx: SuiteRun, f: Fixture): Promise<CheckResult[]> {
  const env = ctx.environment;
  for (const p of ALL_PLANS) {
    const reg = p.registry === 'rotation' ? f.rot : f.main;
    for (const label of ['a', 'b']) await reg.serveAs(env, host(p, label));
  }
  let podSeq = 0;
  const podName = (p: Plan) => `${p.name}-${f.id}-${++podSeq}`;
  const execsOf = async (p: Plan): Promise<FakeInvocation[]> => (await f.fleet.invocations()).filter((i) => i.provider === p.name);
  const pod = (p: Plan, ref: string) => runPod(env, { name: podName(p), image: ref, pullPolicy: 'Always', timeoutMs: POD_TIMEOUT_MS });
  /**
   * A pod and when its credential lookup happened: after its creation, and no
   * later than its "Pulling" event (emitted right after the lookup, before the
   * serial puller; second precision, so +1s) or, without one, its outcome.
   */
  const timedPod = async (p: Plan, ref: string): Promise<{ run: PodRun; createdAt: number; lookedUpBy: number }> => {
    const createdAt = Date.now();
    const run = await pod(p, ref);
    const outcomeAt = Date.now();
    const pulling = await pullingEventAt(env, run.name);
    return { run, createdAt, lookedUpBy: pulling === undefined ? outcomeAt : Math.min(outcomeAt, pulling + 1000) };
  };

  /** Evidence shared by every case: its plugin execs, its pods' events, a kubelet excerpt when a pull failed or the kubelet disagreed. */
  const caseEvidence = async (p: Plan, pods: PodRun[], withKubelet: boolean): Promise<Evidence[]> => [
    { kind: 'invocation', label: `plugin execs of ${p.name} (${f.fleet.logFile})`, data: (await execsOf(p)).map((i) => ({ time: i.time, durationMs: i.durationMs, image: i.request.image, decidedBy: i.decidedBy, exitCode: i.response.exitCode })) },
    ...pods.flatMap((r) => r.evidence),
    ...(withKubelet ? await kubeletEvidence(env, [p.name, host(p), 'credential provider', 'Failed to pull']) : []),
  ];

  /** The model's verdict for a sequence of pulls, at the given times. */
  const predictPulls = (p: Plan, pulls: Array<{ label: string; request: string; atMs: number }>) => {
    const m = newModel(p);
    const decisions = pulls.map((x) => ({ label: x.label, d: m.pull(x.request, x.atMs, modelAnswer(p)) }));
    return {
      value: decisions.map(({ label, d }) => ({ label, execs: d.invoked ? 1 : 0 })),
      because: `${describePlan(p)}: ${decisions.map(({ label, d }) => `${label}: ${d.invoked ? 'exec' : 'hit'} (${d.reason})`).join('; ')}`,
    };
  };

  /**
   * Judges a sequence: the model's prediction vs the execs seen; a harness
   * failure if the real schedule would change the prediction (the model is
   * replayed with each lookup at the earliest and at the latest moment it can
   * have happened: the pod's creation and its outcome); a failure when a pull
   * the plugin had valid credentials for did not succeed.
   */
  const verdict = async (check: Check, p: Plan, pulls: Pull[], done: Window[], seen: PullSeen[], runs: PodRun[], startedAt: Date, prediction: Prediction<PullSeen[]>): Promise<CheckResult> => {
    const replayAt = (end: keyof Window) => predictPulls(p, pulls.map((x, i) => ({ ...x, atMs: done[i]?.[end] ?? x.atMs }))).value;
    const failed = runs.filter((r) => r.pull === 'failure');
    const agree = isDeepStrictEqual(prediction.value, seen);
    const schedule: Evidence = { kind: 'data', label: 'schedule, ms after the origin: planned (the model\'s time) and done (the lookup happened between the pod\'s creation and its Pulling event + 1s, or its outcome)', data: pulls.map((x, i) => ({ pull: x.label, image: x.ref, plannedMs: x.atMs, createdMs: done[i]?.fromMs ?? null, lookedUpByMs: done[i]?.toMs ?? null })) };
    const result = judge(check, { prediction, observed: seen, show: showPulls, evidence: [schedule, ...(await caseEvidence(p, runs, failed.length > 0 || !agree))], startedAt });
    if (!isDeepStrictEqual(replayAt('fromMs'), prediction.value) || !isDeepStrictEqual(replayAt('toMs'), prediction.value)) {
      const when = pulls.map((x, i) => `${x.label} planned +${secs(x.atMs)}, looked up in +${secs(done[i]?.fromMs ?? NaN)}…+${secs(done[i]?.toMs ?? NaN)}`).join('; ');
      return { ...result, status: 'failed', cause: 'harness', message: `schedule slipped, the prediction no longer holds for when the pods really ran (${when}); ${result.message}` };
    }
    if (failed.length > 0) {
      const why = failed.map((r) => `${r.name}: ${failedMessage(r)}`).join('; ');
      return { ...result, status: 'failed', cause: 'subject', message: `${result.message}; but ${failed.length} pull(s) failed although the plugin's credentials are valid: ${why}` };
    }
    return result;
  };

  /** Pulls one after another, each after the previous pod finished; execs are counted per pull. */
  const sequential = async (check: Check, p: Plan, pulls: Pull[]): Promise<CheckResult> => {
    const startedAt = new Date();
    const predicted = predictPulls(p, pulls);
    const prediction: Prediction<PullSeen[]> = { value: predicted.value, model: MODEL, because: predicted.because };
    const seen: PullSeen[] = [];
    const runs: PodRun[] = [];
    const done: Window[] = [];
    let origin: number | undefined;
    for (const x of pulls) {
      const before = (await execsOf(p)).length;
      const t = await timedPod(p, x.ref);
      origin ??= t.createdAt;
      done.push({ fromMs: t.createdAt - origin, toMs: t.lookedUpBy - origin });
      runs.push(t.run);
      seen.push({ label: x.label, execs: (await execsOf(p)).length - before });
    }
    return verdict(check, p, pulls, done, seen, runs, startedAt, prediction);
  };

  /** cacheKeyType × (same image again, another image on the registry, an image on another registry). */
  const keyCase = (check: Check, p: Plan) => {
    const one = image(p, 'a', 'cache/one');
    const two = image(p, 'a', 'cache/two');
    const other = image(p, 'b', 'cache/one');
    return sequential(check, p, [
      { label: `first pull of ${one.request}`, ...one, atMs: 0 },
      { label: 'same image again', ...one, atMs: KEY_SLOT_MS },
      { label: `another image on the registry (${two.request})`, ...two, atMs: 2 * KEY_SLOT_MS },
      { label: `an image on another registry (${other.request})`, ...other, atMs: 3 * KEY_SLOT_MS },
    ]);
  };

  /** cacheDuration 0s (either way): the same image twice, the model decides whether the second pull execs. */
  const zeroCase = (check: Check, p: Plan) => {
    const one = image(p, 'a', 'cache/one');
    return sequential(check, p, [
      { label: `first pull of ${one.request}`, ...one, atMs: 0 },
      { label: 'same image again', ...one, atMs: KEY_SLOT_MS },
    ]);
  };

  /**
   * A timed sequence relative to the first exec's answer (t=0): a second pull
   * at once (planned by half the entry's life), a third once twice the
   * duration has passed since the first exec.
   */
  const expiryCase = async (check: Check, p: Plan): Promise<CheckResult> => {
    const startedAt = new Date();
    const life = modelAnswer(p).cacheDurationMs ?? durationMs(p.defaultCacheDuration);
    const one = image(p, 'a', 'cache/one');
    const pulls: Pull[] = [
      { label: 'first pull', ...one, atMs: 0 },
      { label: `again within ${secs(life)}`, ...one, atMs: life / 2 },
      { label: `again after 2×${secs(life)}`, ...one, atMs: 2 * life },
    ];
    const predicted = predictPulls(p, pulls);
    const prediction: Prediction<PullSeen[]> = { value: predicted.value, model: MODEL, because: predicted.because };
    // The first pod's exec is the origin (t=0): the kubelet stores the entry when the answer comes back.
    const first = pod(p, one.ref);
    const inv = await waitForExec(() => execsOf(p), 1, POD_TIMEOUT_MS);
    if (!inv) {
      const r = await first;
      return verdict(check, p, pulls, [{ fromMs: 0, toMs: 0 }], [{ label: pulls[0]!.label, execs: 0 }], [r], startedAt, prediction);
    }
    const t0 = Date.parse(inv.time);
    // The second pod at once, without waiting for the first to finish.
    const [r1, t2] = await Promise.all([first, timedPod(p, one.ref)]);
    const after2 = (await execsOf(p)).length;
    await sleep(t0 + 2 * life - Date.now());
    const t3 = await timedPod(p, one.ref);
    const after3 = (await execsOf(p)).length;
    const seen: PullSeen[] = [
      { label: pulls[0]!.label, execs: 1 },
      { label: pulls[1]!.label, execs: after2 - 1 },
      { label: pulls[2]!.label, execs: after3 - after2 },
    ];
    const done = [{ fromMs: 0, toMs: 0 }, ...[t2, t3].map((t) => ({ fromMs: t.createdAt - t0, toMs: t.lookedUpBy - t0 }))];
    return verdict(check, p, pulls, done, seen, [r1, t2.run, t3.run], startedAt, prediction);
  };

  const cases: Array<Promise<CheckResult>> = [
    keyCase(KEY_IMAGE, PLANS.image),
    keyCase(KEY_REGISTRY, PLANS.registry),
    keyCase(KEY_GLOBAL, PLANS.global),
    expiryCase(DURATION_DEFAULT, PLANS.dflt),
    zeroCase(DURATION_ZERO_RESPONSE, PLANS.zeroResponse),
    zeroCase(DURATION_ZERO_DEFAULT, PLANS.zeroDefault),
    expiryCase(EXPIRY, PLANS.expiry),
    rotationCase(ctx, f, PLANS.rotation, { pod, execsOf, caseEvidence }),
    singleflightCase(ctx, f, PLANS.singleflight, { execsOf, caseEvidence }),
  ];
  const settled = await Promise.allSettled(cases);
  return settled.map((s, i) => s.status === 'fulfilled' ? s.value : harnessFailure(CACHE_CHECKS[i]!, s.reason));
}

interface Helpers {
  pod: (p: Plan, ref: string) => Promise<PodRun>;
  execsOf: (p: Plan) => Promise<FakeInvocation[]>;
  caseEvidence: (p: Plan, pods: PodRun[], withKubelet: boolean) => Promise<Evidence[]>;
}

interface RotationSeen {
  /** Pulls between the rotation and the re-invocation: what happened to them. */
  whileCached: string;
  /** The first exec after the rotation, relative to the first exec (ms); null: none. */
  reinvokedAtMs: number | null;
  /** The first successful pull after the rotation, relative to the first exec (ms); null: none. */
  recoveredAtMs: number | null;
  /** When the password was rotated, relative to the first exec (ms). */
  rotatedAtMs: number;
}

/**
 * Rotation: the first pull caches the Registry entry (old password); the
 * registry's password is rotated and the fake rescripted to hand out the new
 * one. New pods keep pulling: they fail with the cached old password until the
 * entry expires, then the plugin is exec'd again and the pull succeeds.
 */
async function rotationCase(ctx: SuiteRun, f: Fixture, p: Plan, h: Pick<Helpers, 'pod' | 'execsOf' | 'caseEvidence'>): Promise<CheckResult> {
  const startedAt = new Date();
  const one = image(p, 'a', 'cache/one');
  const m = newModel(p);
  const stored = m.pull(one.request, 0, modelAnswer(p));
  if (!stored.invoked || !stored.stored) throw new Error(`the model stores nothing for ${describePlan(p)}: not a rotation case`);
  const expiry = stored.stored.expiresAt;
  // The model's own answer to "when is the first lookup that execs again": cached at expiry, gone just after.
  if (m.lookup(one.request, expiry) === undefined || m.lookup(one.request, expiry + 1) !== undefined) throw new Error('cache model: expiry boundary is not where the entry says');
  const prediction: Prediction<RotationSeen> = {
    value: { whileCached: 'all failed, no exec', reinvokedAtMs: expiry, recoveredAtMs: expiry, rotatedAtMs: NaN },
    model: MODEL,
    because: `${describePlan(p)}: the first exec stores ${stored.reason.replace(/^.*; stores /, '')}; until +${secs(expiry)} every pull uses the old password and fails; the first lookup after +${secs(expiry)} execs the plugin (new password), so recovery by +${secs(expiry + ROTATION_TOLERANCE_MS)} (expiry + ${secs(ROTATION_TOLERANCE_MS)} pod latency)`,
  };
  const showSeen = (v: RotationSeen) => Number.isNaN(v.rotatedAtMs)
    ? `pulls fail until expiry, re-exec not before +${secs(v.reinvokedAtMs ?? NaN)}, recovery by +${secs((v.recoveredAtMs ?? NaN) + ROTATION_TOLERANCE_MS)}`
    : `pulls after the rotation (+${secs(v.rotatedAtMs)}): ${v.whileCached}; re-exec at ${v.reinvokedAtMs === null ? 'never' : `+${secs(v.reinvokedAtMs)} (${secs(v.reinvokedAtMs - v.rotatedAtMs)} after the rotation, predicted ≥ ${secs(expiry - v.rotatedAtMs)})`}; first good pull at ${v.recoveredAtMs === null ? 'never' : `+${secs(v.recoveredAtMs)} (${secs(v.recoveredAtMs - v.rotatedAtMs)} after the rotation, predicted ${secs(expiry - v.rotatedAtMs)}–${secs(expiry + ROTATION_TOLERANCE_MS - v.rotatedAtMs)})`}`;
  const agree = (pred: RotationSeen, seen: RotationSeen) =>
    seen.whileCached === pred.whileCached
    && seen.reinvokedAtMs !== null && pred.reinvokedAtMs !== null && seen.reinvokedAtMs >= pred.reinvokedAtMs
    && seen.recoveredAtMs !== null && pred.recoveredAtMs !== null && seen.recoveredAtMs <= pred.recoveredAtMs + ROTATION_TOLERANCE_MS;

  const runs: PodRun[] = [];
  const first = await h.pod(p, one.ref);
  runs.push(first);
  const execs0 = await h.execsOf(p);
  if (first.pull !== 'success' || execs0.length !== 1) {
    return { ...judge(ROTATION, { prediction, observed: { whileCached: 'no first pull', reinvokedAtMs: null, recoveredAtMs: null, rotatedAtMs: NaN }, show: showSeen, agree, evidence: await h.caseEvidence(p, runs, true), startedAt }),
      cause: 'harness', message: `the first pull (before any rotation) ${first.pull === 'success' ? `saw ${execs0.length} execs instead of 1` : `failed: ${failedMessage(first)}`}: cannot test rotation` };
  }
  const t0 = Date.parse(execs0[0]!.time);
  const newPassword = randomBytes(12).toString('hex');
  ctx.redactor.add(newPassword);
  await f.rot.registry.users.rotate(f.rot.user.username, newPassword);
  await f.fleet.rescript(p.name, scenarioFor(p, { username: f.rot.user.username, password: newPassword }));
  const rotatedAt = Date.now();
  if (rotatedAt - t0 >= expiry) throw new Error(`the rotation came ${secs(rotatedAt - t0)} after the first exec, after the entry's ${secs(expiry)} life: nothing cached to test`);

  let failedCached = 0;
  let succeededCached = 0;
  const failureReasons: Record<string, number> = {};
  let recoveredAt: number | undefined;
  const deadline = t0 + expiry + ROTATION_TOLERANCE_MS + 30_000;
  while (recoveredAt === undefined && Date.now() < deadline) {
    const execsBefore = (await h.execsOf(p)).length;
    const r = await h.pod(p, one.ref);
    const seenAt = Date.now();
    runs.push(r);
    const newExec = (await h.execsOf(p)).length > execsBefore;
    if (r.pull === 'success') {
      if (newExec || (await h.execsOf(p)).length > 1) recoveredAt = seenAt;
      else succeededCached++;
    } else if (!newExec) {
      failedCached++;
      failureReasons[r.failure ?? 'unknown'] = (failureReasons[r.failure ?? 'unknown'] ?? 0) + 1;
    }
    if (recoveredAt === undefined) await sleep(1000);
  }
  const reExec = (await h.execsOf(p)).slice(1)[0];
  const seen: RotationSeen = {
    whileCached: succeededCached > 0 ? `${succeededCached} succeeded with the old password, ${failedCached} failed` : failedCached > 0 ? 'all failed, no exec' : 'none before the re-exec',
    reinvokedAtMs: reExec ? Date.parse(reExec.time) - t0 : null,
    recoveredAtMs: recoveredAt === undefined ? null : recoveredAt - t0,
    rotatedAtMs: rotatedAt - t0,
  };
  const result = judge(ROTATION, { prediction: { ...prediction, value: { ...prediction.value, rotatedAtMs: seen.rotatedAtMs } }, observed: seen, show: showSeen, agree, evidence: await h.caseEvidence(p, runs.filter((r, i) => i === 0 || i >= runs.length - 3 || r.pull === 'success'), false), startedAt });
  const figures = { rotatedAtS: seen.rotatedAtMs / 1000, failedWhileCached: failedCached, failureReasons, reinvocationAfterRotationS: seen.reinvokedAtMs === null ? null : (seen.reinvokedAtMs - seen.rotatedAtMs) / 1000, recoveryAfterRotationS: seen.recoveredAtMs === null ? null : (seen.recoveredAtMs - seen.rotatedAtMs) / 1000, predictedExpiryAfterRotationS: (expiry - seen.rotatedAtMs) / 1000, toleranceS: ROTATION_TOLERANCE_MS / 1000 };
  result.evidence.push({ kind: 'data', label: 'rotation recovery figures (seconds)', data: figures });
  if (result.status === 'failed') result.evidence.push(...(await kubeletEvidence(ctx.environment, [p.name, host(p), 'credential provider', 'Failed to pull'])));
  return result;
}

/** Several pods of one image created together while the plugin takes `delay` to answer: one exec for all. */
async function singleflightCase(ctx: SuiteRun, f: Fixture, p: Plan, h: Pick<Helpers, 'execsOf' | 'caseEvidence'>): Promise<CheckResult> {
  const startedAt = new Date();
  const one = image(p, 'a', 'cache/one');
  const d = newModel(p).pullTogether(one.request, 0, SINGLEFLIGHT_PODS, modelAnswer(p));
  const prediction: Prediction<number> = { value: d.execs, model: MODEL, because: `${describePlan(p)}: ${d.reason}` };
  const before = (await h.execsOf(p)).length;
  const names = Array.from({ length: SINGLEFLIGHT_PODS }, (_, i) => `${p.name}-${f.id}-together-${i + 1}`);
  // Create them all first (one apply each, in parallel), then wait: their lookups must overlap the exec.
  const runs = await Promise.all(names.map((name) => runPod(ctx.environment, { name, image: one.ref, pullPolicy: 'Always', timeoutMs: POD_TIMEOUT_MS })));
  const execs = (await h.execsOf(p)).slice(before);
  const spans = execs.map((i) => ({ start: Date.parse(i.time) - i.durationMs, end: Date.parse(i.time) }));
  const overlapping = spans.some((a, i) => spans.some((b, j) => i < j && a.start < b.end && b.start < a.end));
  const failed = runs.filter((r) => r.pull === 'failure');
  const show = (n: number) => `${n} exec${n === 1 ? '' : 's'} for ${SINGLEFLIGHT_PODS} pods of ${one.request} created together`;
  const result = judge(SINGLEFLIGHT, { prediction, observed: execs.length, show, evidence: await h.caseEvidence(p, runs, failed.length > 0), startedAt });
  if (result.status === 'failed') {
    const how = execs.length > 1 ? (overlapping ? 'the execs overlapped in time: no singleflight' : 'the execs ran one after another: the lookups did not overlap (serialized, or pods started too far apart)') : 'no exec at all';
    return { ...result, message: `${result.message} (${how})` };
  }
  if (failed.length > 0) return { ...result, status: 'failed', cause: 'subject', message: `${result.message}; but ${failed.length} of the pods failed to pull with the shared answer: ${failed.map((r) => `${r.name}: ${failedMessage(r)}`).join('; ')}` };
  return result;
}

/** When the kubelet emitted a pod's "Pulling" event (ms, truncated to the second); undefined if there is none yet. */
async function pullingEventAt(env: SuiteRun['environment'], pod: string): Promise<number | undefined> {
  const list = await kubeApi(env).then((api) => api.core.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${pod}` })).catch(() => undefined);
  const ev = list?.items.find((e) => e.reason === 'Pulling');
  const at = (ev?.firstTimestamp ?? ev?.eventTime)?.getTime();
  return at === undefined || Number.isNaN(at) ? undefined : at;
}

/** Polls the fleet log until a provider has `count` execs; undefined on timeout. */
async function waitForExec(list: () => Promise<FakeInvocation[]>, count: number, timeoutMs: number): Promise<FakeInvocation | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const all = await list();
    if (all.length >= count) return all[count - 1];
    await sleep(150);
  }
  return undefined;
}

function failedMessage(r: PodRun): string {
  const ev = [...r.events].reverse().find((e) => e.reason === 'Failed');
  const msg = ev?.message ?? (r.outcome.kind === 'pull-failed' ? `${r.outcome.reason}: ${r.outcome.message}` : `exit ${r.outcome.kind === 'completed' ? r.outcome.exitCode : '?'}`);
  return msg.replace(/\s+/g, ' ').slice(0, 300);
}

function harnessFailure(check: Check, err: unknown): CheckResult {
  return {
    ...check, status: 'failed', cause: 'harness', message: `harness error: ${err instanceof Error ? err.message : String(err)}`, evidence: [],
    startedAt: new Date().toISOString(), durationMs: 0,
  };
}
