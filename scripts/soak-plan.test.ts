import { describe, expect, test } from '@jest/globals';
import { parseForcedFault, planFaults, seededRandom, STARTED_BY } from './soak-plan.ts';
import { verdicts } from './soak-verdicts.ts';

const STEPS = [
  'resolve binaries',
  'certificates',
  'start etcd',
  'start kube-apiserver',
  'start containerd',
  'start kubelet',
  'wait for node Ready',
];

describe('the soak plan', () => {
  test('a seed replays: the same seed and steps give the same plan, another seed another one', () => {
    const a = planFaults({ seed: 42, cycles: 20, faults: 5, upSteps: STEPS });
    expect(planFaults({ seed: 42, cycles: 20, faults: 5, upSteps: STEPS })).toEqual(a);
    expect(planFaults({ seed: 43, cycles: 20, faults: 5, upSteps: STEPS })).not.toEqual(a);
  });

  test('faults fall on distinct cycles between the clean first and last ones, and a daemon is killed only once its step has begun', () => {
    for (let seed = 0; seed < 50; seed++) {
      const plan = planFaults({ seed, cycles: 20, faults: 5, upSteps: STEPS });
      expect(plan).toHaveLength(5);
      expect(new Set(plan.map((f) => f.cycle)).size).toBe(5);
      expect(plan.every((f) => f.cycle >= 1 && f.cycle < 19)).toBe(true);
      for (const f of plan.filter((x) => x.phase === 'up' && x.component !== 'cli')) {
        expect(STEPS.indexOf(f.step!)).toBeGreaterThanOrEqual(
          STEPS.indexOf(STARTED_BY[f.component as keyof typeof STARTED_BY]),
        );
      }
    }
  });

  test('forced faults come first, in order; the rest stays seeded', () => {
    const plan = planFaults({
      seed: 7,
      cycles: 4,
      faults: 2,
      upSteps: STEPS,
      forced: [parseForcedFault('kubelet:up'), parseForcedFault('cli:suite')],
    });
    expect(plan.map((f) => [f.cycle, f.component, f.phase])).toEqual([
      [1, 'kubelet', 'up'],
      [2, 'cli', 'suite'],
    ]);
    expect(['start kubelet', 'wait for node Ready']).toContain(plan[0]!.step);
  });

  test('bad plans and flags are refused with the reason', () => {
    expect(() => planFaults({ seed: 1, cycles: 4, faults: 3, upSteps: STEPS })).toThrow(/needs at least 5 cycles/);
    expect(planFaults({ seed: 1, cycles: 1, faults: 0, upSteps: STEPS })).toEqual([]);
    expect(() => parseForcedFault('kube-proxy:up')).toThrow(/component must be one of/);
    expect(() => parseForcedFault('kubelet:later')).toThrow(/phase must be up or suite/);
    expect(() =>
      planFaults({
        seed: 1,
        cycles: 3,
        faults: 1,
        upSteps: ['certificates'],
        forced: [{ component: 'kubelet', phase: 'up' }],
      }),
    ).toThrow(/no step 'start kubelet'/);
  });

  test('the generator is uniform enough to reach every component', () => {
    const rnd = seededRandom(1);
    const xs = Array.from({ length: 1000 }, rnd);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    const seen = new Set(
      Array.from({ length: 40 }, (_, s) =>
        planFaults({ seed: s, cycles: 7, faults: 5, upSteps: STEPS }).map((f) => f.component),
      ).flat(),
    );
    expect(seen.size).toBe(5);
  });
});

describe('soak verdicts', () => {
  const run = (index: number, statuses: Record<string, string>) => ({
    index,
    statuses,
    failed: Object.entries(statuses)
      .filter(([, s]) => s === 'failed')
      .map(([id]) => ({ id, message: `${id} broke in run ${index}` })),
  });
  test("a check that passed once and failed once is flaky, with each failure's message; one failing every time is not a flake", () => {
    const v = verdicts([
      run(0, { A: 'passed', B: 'failed', C: 'skipped' }),
      run(1, { A: 'failed', B: 'failed', C: 'skipped' }),
    ]);
    expect(v.flaky).toEqual([{ id: 'A', passed: 1, failed: 1, why: ['run 1: A broke in run 1'] }]);
    expect(v.alwaysFailed).toEqual(['B']);
  });
});
