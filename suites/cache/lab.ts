// What every cache case runs on: two lab registries (the rotation case has
// its own, since it changes the password), one fleet of recording fake
// providers (one per plan, all under one kubelet config), and per case a
// namespace, its provider's execs and its pods.
import { randomBytes } from 'node:crypto';
import {
  answer,
  kubeletEvidence,
  podEventAt,
  prepareFleet,
  runPod,
  startLabRegistry,
  type CaseContext,
  type Clock,
  type Evidence,
  type FakeInvocation,
  type Fleet,
  type LabRegistry,
  type PodRun,
  type RouteTarget,
  type ScenarioFile,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { ALL_PLANS, glob, HOST_LABELS, host, POD_TIMEOUT_MS, REPOSITORIES, type Plan } from './plan.ts';

export interface CacheLab {
  main: LabRegistry;
  rotation: LabRegistry;
  fleet: Fleet;
  /** Keeps this run's pod names apart from an earlier run's. */
  id: string;
}

const registryFor = (lab: Pick<CacheLab, 'main' | 'rotation'>, p: Plan): LabRegistry =>
  p.registry === 'rotation' ? lab.rotation : lab.main;

export function scenarioFor(p: Plan, user: { username: string; password: string }): ScenarioFile {
  // The auth key is the provider's glob, so a Registry or Global entry stored
  // for one host also carries credentials the keyring matches to the others.
  const auth = { [glob(p)]: { username: user.username, password: user.password } };
  return answer([glob(p)], auth, {
    cacheKeyType: p.cacheKeyType,
    cacheDuration: p.cacheDuration,
    ...(p.delay ? { delay: p.delay } : {}),
  });
}

/** Starts the registries (owned: stopped after the suite), pushes the images, and writes the fleet. */
export async function startCacheLab(ctx: SuiteSetup): Promise<CacheLab> {
  // Settled, not raced: a registry that starts after the other failed is still owned, so still stopped.
  const started = await Promise.allSettled([
    ctx.own(startLabRegistry(ctx, 'cache')),
    ctx.own(startLabRegistry(ctx, 'cache-rot')),
  ]);
  const [main, rotation] = started.map((s) => {
    if (s.status === 'rejected') throw s.reason;
    return s.value;
  }) as [LabRegistry, LabRegistry];
  await main.push(REPOSITORIES.one);
  await main.push(REPOSITORIES.two);
  await rotation.push(REPOSITORIES.one);
  // serializeImagePulls stays true (the harness default): the credential
  // lookup runs in EnsureImageExists before the serial puller, so it does
  // not serialize plugin execs (CACHE-SINGLEFLIGHT shows it).
  const fleet = await prepareFleet(
    ctx,
    ALL_PLANS.map((p) => ({
      name: p.name,
      matchImages: [glob(p)],
      defaultCacheDuration: p.defaultCacheDuration,
      scenario: scenarioFor(p, registryFor({ main, rotation }, p).user),
    })),
  );
  // The scenario files and the request log hold passwords in clear for the fakes (the rotated one too).
  ctx.defer(() => fleet.redactArtifacts());
  return { main, rotation, fleet, id: randomBytes(3).toString('hex') };
}

/** Routes every plan's hosts to its registry in the environment's containerd. */
export async function routeHosts(run: RouteTarget, lab: CacheLab): Promise<void> {
  for (const p of ALL_PLANS) {
    for (const label of HOST_LABELS) await registryFor(lab, p).serveAs(run, host(p, label));
  }
}

/** A pod, and when its credential lookup happened (ms since the epoch): after its creation, by `lookedUpBy`. */
export interface TimedPod {
  run: PodRun;
  createdAt: number;
  lookedUpBy: number;
}

/** One case's provider and pods, in the case's own namespace. */
export interface ProviderCase {
  plan: Plan;
  /** The case's clock: the schedule's waits and times. */
  clock: Clock;
  /** This provider's plugin execs so far. */
  execs(): Promise<FakeInvocation[]>;
  pod(ref: string, name?: string): Promise<PodRun>;
  timedPod(ref: string): Promise<TimedPod>;
  /** Evidence every case gives: its plugin execs and its pods' events. */
  evidence(pods: PodRun[]): Promise<Evidence[]>;
}

export async function providerCase(ctx: CaseContext, lab: CacheLab, p: Plan): Promise<ProviderCase> {
  const env = ctx.environment;
  const namespace = await ctx.namespace(p.name);
  ctx.onFailure(() => kubeletEvidence(env, [p.name, host(p), 'credential provider', 'Failed to pull']));
  let podSeq = 0;
  const execs = async () => (await lab.fleet.invocations()).filter((i) => i.provider === p.name);
  const pod = (ref: string, name = `${p.name}-${lab.id}-${++podSeq}`) =>
    runPod(env, { name, namespace, image: ref, pullPolicy: 'Always', timeoutMs: POD_TIMEOUT_MS });
  return {
    plan: p,
    clock: ctx.clock,
    execs,
    pod,
    async timedPod(ref) {
      // The lookup happened after the pod's creation, and no later than its
      // "Pulling" event (emitted right after the lookup, before the serial
      // puller; second precision, so +1s) or, without one, its outcome.
      const createdAt = ctx.clock.now();
      const run = await pod(ref);
      const outcomeAt = ctx.clock.now();
      const pulling = await podEventAt(env, run.name, namespace, 'Pulling');
      return { run, createdAt, lookedUpBy: pulling === undefined ? outcomeAt : Math.min(outcomeAt, pulling + 1000) };
    },
    async evidence(pods) {
      const data = (await execs()).map((i) => ({
        time: i.time,
        durationMs: i.durationMs,
        image: i.request.image,
        decidedBy: i.decidedBy,
        exitCode: i.response.exitCode,
      }));
      return [
        { kind: 'invocation', label: `plugin execs of ${p.name} (${lab.fleet.logFile})`, data },
        ...pods.flatMap((r) => r.evidence),
      ];
    },
  };
}

/** Why a pod's pull failed, in one line: the kubelet's last Failed event, else the outcome. */
export function failedMessage(r: PodRun): string {
  const event = [...r.events].reverse().find((e) => e.reason === 'Failed');
  const outcome =
    r.outcome.kind === 'pull-failed' ? `${r.outcome.reason}: ${r.outcome.message}` : `exit ${r.outcome.exitCode}`;
  return (event?.message ?? outcome).replace(/\s+/g, ' ').slice(0, 300);
}
