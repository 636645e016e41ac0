// The soak's plan, from a seed: which up/down cycles get a fault, which
// component is SIGKILLed, and when (at which `up` step, or how long into a
// suite). The same seed and step list give the same plan, so a run that found
// something can be replayed.

export const FAULT_COMPONENTS = ['etcd', 'kube-apiserver', 'containerd', 'kubelet', 'cli'] as const;
export type FaultComponent = (typeof FAULT_COMPONENTS)[number];
export type FaultPhase = 'up' | 'suite';

/** The `up` step that starts each daemon: it can be killed from there on. The CLI can be killed at any step. */
export const STARTED_BY: Record<Exclude<FaultComponent, 'cli'>, string> = {
  etcd: 'start etcd',
  'kube-apiserver': 'start kube-apiserver',
  containerd: 'start containerd',
  kubelet: 'start kubelet',
};

export interface Fault {
  cycle: number;
  component: FaultComponent;
  phase: FaultPhase;
  /** phase up: the step at whose start line the kill is armed (the daemon is killed as soon as its pid file names it). */
  step?: string;
  /** Extra wait after the trigger: for a suite, after the suite's kubelet is Ready (pods are being pulled and run). */
  delayMs: number;
}

/** mulberry32: small, fast and good enough to pick faults; the point is that a seed replays. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface PlanOptions {
  seed: number;
  cycles: number;
  faults: number;
  /** The steps `up` prints, in order (read from a clean `up`). */
  upSteps: string[];
  /** Forced faults (component and phase), in order; the rest of the plan stays seeded. */
  forced?: Array<{ component: FaultComponent; phase: FaultPhase }>;
}

/**
 * Faults for `faults` of the cycles. The first and last cycles stay clean:
 * the first is the baseline and tells the soak the step list, the last shows
 * that `up` works after the last fault. Each fault is a component, a phase,
 * and a moment: a step at or after the one that starts the component, or a
 * delay of up to 2.5 s into a suite.
 */
export function planFaults(o: PlanOptions): Fault[] {
  if (o.faults > 0 && o.faults > o.cycles - 2)
    throw new Error(`--faults ${o.faults} needs at least ${o.faults + 2} cycles (the first and last stay clean)`);
  const rnd = seededRandom(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const candidates = Array.from({ length: Math.max(0, o.cycles - 2) }, (_, i) => i + 1);
  const cycles: number[] = [];
  while (cycles.length < o.faults) cycles.push(candidates.splice(Math.floor(rnd() * candidates.length), 1)[0]!);
  cycles.sort((a, b) => a - b);
  return cycles.map((cycle, i) => {
    const forced = o.forced?.[i];
    const component = forced?.component ?? pick(FAULT_COMPONENTS);
    const phase = forced?.phase ?? (rnd() < 0.5 ? 'up' : 'suite');
    if (phase === 'suite') return { cycle, component, phase, delayMs: Math.round(rnd() * 2500) };
    const from = component === 'cli' ? 0 : o.upSteps.indexOf(STARTED_BY[component]);
    if (from < 0)
      throw new Error(
        `up prints no step '${STARTED_BY[component as Exclude<FaultComponent, 'cli'>]}' (steps: ${o.upSteps.join(', ')})`,
      );
    return { cycle, component, phase, step: pick(o.upSteps.slice(from)), delayMs: Math.round(rnd() * 300) };
  });
}

export function parseForcedFault(text: string): { component: FaultComponent; phase: FaultPhase } {
  const [component, phase = 'up'] = text.split(':');
  if (!(FAULT_COMPONENTS as readonly string[]).includes(component!))
    throw new Error(`--fault ${text}: component must be one of ${FAULT_COMPONENTS.join(', ')}`);
  if (phase !== 'up' && phase !== 'suite') throw new Error(`--fault ${text}: phase must be up or suite`);
  return { component: component as FaultComponent, phase };
}
