import { describe, expect, test } from '@jest/globals';
import { noopLogger } from '../core/logger.ts';
import { silentProgress } from '../core/progress.ts';
import { Redactor } from '../core/redact.ts';
import type { Capabilities, Environment, EnvironmentProvider } from '../cluster/provider.ts';
import type { Check, CheckResult } from '../report/model.ts';
import { caseOf, runCases, type Case } from './cases.ts';
import { judge } from './prediction.ts';
import { reconcile } from './results.ts';
import type { SuiteRun } from './suite.ts';

const check = (id: string): Check => ({ id, title: `check ${id}`, level: 'MUST', source: 'test' });
const A = check('A');
const B = check('B');
const C = check('C');

function suiteRun(o: { ci?: boolean; caps?: Partial<Capabilities> } = {}): SuiteRun {
  const caps: Capabilities = {
    restartKubelet: true,
    swapKubeletBinary: false,
    installPlugins: true,
    hostRegistries: true,
    hostContainerd: true,
    kubeletFiles: false,
    clusterCA: true,
    apiserverAuthn: true,
    pluginsReachHost: true,
    secondNode: false,
    ...o.caps,
  };
  return {
    log: noopLogger,
    progress: silentProgress,
    artifactsDir: '/nonexistent',
    redactor: new Redactor(),
    processEnv: {},
    ci: o.ci ?? false,
    environmentName: 'unit',
    kubeVersion: 'v1.37.1',
    defer: () => {
      throw new Error("a case must not reach the suite's defer");
    },
    own: () => {
      throw new Error("a case must not reach the suite's own");
    },
    environment: { name: 'unit', provider: 'local' } as Environment,
    provider: { name: 'local' } as EnvironmentProvider,
    can: (c) => caps[c],
  };
}

const agreeing = (c: Check): CheckResult =>
  judge(c, { prediction: { value: 1, model: 'unit model', because: 'one' }, observed: 1, show: String });

describe('runCases', () => {
  test("a throw becomes a harness failure of each of that case's checks; the other cases still report", async () => {
    const results = await runCases(suiteRun(), [
      {
        checks: [A, B],
        run: async () => {
          throw new Error('registry went away');
        },
      },
      caseOf(C, async () => agreeing(C)),
    ]);
    expect(results.map((r) => [r.id, r.status, r.cause ?? '', r.message])).toEqual([
      ['A', 'failed', 'harness', 'harness error: registry went away'],
      ['B', 'failed', 'harness', 'harness error: registry went away'],
      ['C', 'passed', '', expect.stringContaining('as predicted') as unknown as string],
    ]);
  });

  test('a check the case dropped, repeated or never declared is a harness failure, in the declared order', async () => {
    const results = await runCases(suiteRun(), [
      { checks: [A, B], run: async () => [agreeing(B), agreeing(C), agreeing(B)] },
    ]);
    expect(results.map((r) => `${r.id}:${r.status}`)).toEqual(['A:failed', 'B:passed', 'C:failed', 'B:failed']);
    expect(results[0]!.message).toBe('the case of A, B gave no result for check A');
    expect(results[2]!.message).toMatch(/reported check C which it does not declare/);
    expect(results[3]!.message).toMatch(/reported check B twice/);
  });

  test('a case needing a capability the provider lacks is skipped with the reason, and fails under CI', async () => {
    const needy: Case = caseOf(A, async () => agreeing(A), { needs: ['kubeletFiles'] });
    const [skippedHere] = await runCases(suiteRun(), [needy]);
    expect(skippedHere).toMatchObject({
      status: 'skipped',
      message: expect.stringContaining("kubeletFiles (read and write the kubelet's files from this host)"),
    });
    const [failedInCI] = await runCases(suiteRun({ ci: true }), [needy]);
    expect(failedInCI).toMatchObject({ status: 'failed', cause: 'harness' });
  });

  test('cleanups run last first after each case, and failure evidence is collected only for a failing case', async () => {
    const order: string[] = [];
    const results = await runCases(
      suiteRun(),
      [
        caseOf(A, async (ctx) => {
          ctx.defer(() => void order.push('A first'));
          ctx.defer(() => void order.push('A second'));
          ctx.onFailure(() => {
            order.push('A evidence');
            return [];
          });
          return agreeing(A);
        }),
        caseOf(B, async (ctx) => {
          await ctx.own({ stop: async () => void order.push('B stopped') });
          ctx.onFailure(() => [{ kind: 'text', label: 'kubelet log', text: 'E0101 boom' }]);
          return judge(B, { prediction: { value: 1, model: 'unit model', because: 'one' }, observed: 2, show: String });
        }),
      ],
      { concurrency: 1 },
    );
    expect(order).toEqual(['A second', 'A first', 'B stopped']);
    expect(results[1]!.evidence.map((e) => e.label)).toEqual(['prediction and observation', 'kubelet log']);
  });

  test('concurrency bounds how many cases run at once', async () => {
    let running = 0;
    let most = 0;
    const slow = (c: Check) =>
      caseOf(c, async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 20));
        running--;
        return agreeing(c);
      });
    await runCases(suiteRun(), [slow(A), slow(B), slow(C)], { concurrency: 2 });
    expect(most).toBe(2);
  });
});

describe('judge', () => {
  const base = {
    prediction: { value: 'exec', model: 'cache model', because: 'entry expired' },
    show: (v: string) => v,
  };

  test('agreement passes; disagreement fails on the subject with both sides and the hint', () => {
    expect(judge(A, { ...base, observed: 'exec' })).toMatchObject({ status: 'passed', comparison: { agree: true } });
    const r = judge(A, { ...base, observed: 'hit', onDisagree: 'the pods ran too early' });
    expect(r).toMatchObject({
      status: 'failed',
      cause: 'subject',
      comparison: { agree: false, predicted: 'exec', observed: 'hit' },
    });
    expect(r.message).toBe('predicted exec (cache model: entry expired); the kubelet: hit (the pods ran too early)');
  });

  test("an invalid comparison is the harness's failure, whatever it says", () => {
    const r = judge(A, { ...base, observed: 'exec', invalidBecause: 'schedule slipped' });
    expect(r).toMatchObject({ status: 'failed', cause: 'harness', comparison: { agree: true } });
    expect(r.message).toMatch(/^schedule slipped; the kubelet: exec, as predicted/);
  });

  test('problems fail an agreeing comparison on the subject', () => {
    const r = judge(A, { ...base, observed: 'exec', problems: ['pod p1 failed to pull'] });
    expect(r).toMatchObject({ status: 'failed', cause: 'subject' });
    expect(r.message).toMatch(/as predicted .*; but pod p1 failed to pull$/);
  });

  test('a step named like a credential is refused: the redactor would hide its values in the whole report', () => {
    const named = { value: { beforeSecret: 'failure', token: true, steps: [{ cacheTypeToken: { pull: 'success' } }] } };
    const misnamed = { ...base, prediction: { ...base.prediction, ...named }, show: String };
    expect(() => judge(A, { ...misnamed, observed: named.value })).toThrow(
      /^A: step 'beforeSecret', 'cacheTypeToken' reads as a credential name to the redactor/,
    );
    // Booleans are never redacted, so a `token: true` step is fine.
    const fine = { value: { token: true, pull: 'success' } };
    expect(
      judge(A, { ...base, prediction: { ...base.prediction, ...fine }, observed: fine.value, show: String }).status,
    ).toBe('passed');
  });
});

test("reconcile keeps a suite's declared order and names what is missing", () => {
  const out = reconcile('suite s', [A, B], [agreeing(B)]);
  expect(out.map((r) => `${r.id}:${r.status}:${r.cause ?? ''}`)).toEqual(['A:failed:harness', 'B:passed:']);
  expect(out[0]!.message).toBe('suite s gave no result for check A');
});

test('something that finishes starting after its scope closed is stopped at once', async () => {
  const { Scope } = await import('./scope.ts');
  const scope = new Scope('unit', noopLogger);
  let stopped = false;
  let finishStarting!: (s: { stop(): Promise<void> }) => void;
  const late = scope.own(
    new Promise<{ stop(): Promise<void> }>((r) => {
      finishStarting = r;
    }),
  );
  await scope.close();
  finishStarting({
    stop: async () => {
      stopped = true;
    },
  });
  await late;
  await new Promise((r) => setImmediate(r));
  expect(stopped).toBe(true);
});

test("the kit times every case on its clock: each result carries the case's start and duration, a throw's too", async () => {
  const { ManualClock } = await import('../core/time.ts');
  const clock = new ManualClock(Date.parse('2026-01-02T03:04:05.000Z'));
  let seen: Date | undefined;
  const results = await runCases(
    suiteRun(),
    [
      caseOf(A, async (ctx) => {
        seen = ctx.startedAt;
        const sleeping = ctx.clock.sleep(1500);
        await clock.advance(1500);
        await sleeping;
        return agreeing(A);
      }),
      caseOf(B, async () => {
        throw new Error('broke');
      }),
    ],
    { clock },
  );
  expect(seen?.toISOString()).toBe('2026-01-02T03:04:05.000Z');
  expect(results.map((r) => [r.id, r.startedAt])).toEqual([
    ['A', '2026-01-02T03:04:05.000Z'],
    ['B', '2026-01-02T03:04:05.000Z'],
  ]);
  expect(results[0]!.durationMs).toBe(1500);
});
