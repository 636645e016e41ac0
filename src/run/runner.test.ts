import { describe, test, expect, beforeEach, afterEach } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EnvironmentSpec } from '../api/spec/types.ts';
import { PrerequisiteError } from '../core/errors.ts';
import type { Capabilities, Environment, EnvironmentProvider, KubeletChange } from '../cluster/provider.ts';
import { pass, runCheck } from '../report/checks.ts';
import type { Check } from '../report/model.ts';
import { runSuites } from './runner.ts';
import { DEFAULT_KUBE_VERSION } from '../versions/table.ts';
import type { PreparedSuite, Suite, SuiteSetup } from './suite.ts';

const CHECK: Check = { id: 'T-ONE', title: 'one', level: 'MUST', source: 'test' };

class FakeProvider implements EnvironmentProvider {
  readonly name = 'local' as const;
  calls: string[] = [];
  caps: Capabilities = {
    restartKubelet: true,
    swapKubeletBinary: true,
    installPlugins: true,
    hostRegistries: true,
    hostContainerd: true,
    kubeletFiles: true,
    clusterCA: true,
    apiserverAuthn: true,
    pluginsReachHost: true,
    secondNode: false,
  };
  private readonly state: string;
  constructor(state: string) {
    this.state = state;
  }
  async isAvailable() {
    return { ok: true as const };
  }
  capabilities() {
    return this.caps;
  }
  async up(spec: EnvironmentSpec): Promise<Environment> {
    this.calls.push('up');
    const env: Environment = {
      name: spec.name,
      provider: 'local',
      spec,
      kubeVersion: spec.kubeVersion,
      kubeconfig: '/kc',
      binDir: '/b',
      kubectl: '/b/kubectl',
      nodeName: 'n',
      stateDir: join(this.state, 'env', spec.name),
      logsDir: '/l',
      startedAt: '',
    };
    await mkdir(env.stateDir, { recursive: true });
    await writeFile(join(env.stateDir, 'env.json'), JSON.stringify(env));
    return env;
  }
  async restartKubelet(env: Environment, change: KubeletChange): Promise<Environment> {
    this.calls.push('restartKubelet');
    const next = { ...env, spec: { ...env.spec, kubelet: { ...env.spec.kubelet, ...change.kubelet } } };
    await writeFile(join(env.stateDir, 'env.json'), JSON.stringify(next));
    return next;
  }
  async status() {
    return { ready: true, components: [] };
  }
  async collectLogs() {
    this.calls.push('collectLogs');
  }
  watchComponents?: EnvironmentProvider['watchComponents'];
  async down(env: Environment | string) {
    this.calls.push('down');
    await rm(join(this.state, 'env', typeof env === 'string' ? env : env.name), { recursive: true, force: true });
  }
}

function suite(
  o: {
    config?: Record<string, unknown>;
    prepareError?: Error;
    needs?: PreparedSuite['needs'];
    outcome?: 'pass' | 'throw' | 'hang' | 'drop';
    name?: string;
    deferred?: string[];
  } = {},
): Suite & { cleaned: number } {
  const s = {
    name: o.name ?? 'fake',
    summary: 'fake',
    checks: [CHECK],
    cleaned: 0,
    async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
      ctx.defer(() => void o.deferred?.push('first'));
      await ctx.own({ stop: async () => void o.deferred?.push('owned') });
      if (o.prepareError) throw o.prepareError;
      return {
        spec: { kubelet: { config: o.config ?? {} } },
        ...(o.needs ? { needs: o.needs } : {}),
        run: async () => {
          if (o.outcome === 'throw') throw new Error('pod API exploded');
          // A pod that never runs: the suite would wait out its timeouts.
          if (o.outcome === 'hang') await new Promise(() => {});
          if (o.outcome === 'drop') return [];
          return [await runCheck(CHECK, () => pass('ok'))];
        },
        cleanup: async () => {
          s.cleaned += 1;
        },
      };
    },
  };
  return s;
}

let state: string;
let provider: FakeProvider;
const opts = (extra: Record<string, unknown> = {}) => ({
  baseSpec: { name: 'x', provider: 'local' as const, kubelet: { nodeName: 'n' } },
  artifactsDir: join(state, 'artifacts'),
  processEnv: { CREDPROV_STATE_DIR: state, ...(extra.processEnv as object) },
  providerFor: async () => provider,
  ...extra,
});

beforeEach(async () => {
  state = await mkdtemp(join(tmpdir(), 'credprov-runner-'));
  provider = new FakeProvider(state);
});
afterEach(async () => {
  await rm(state, { recursive: true, force: true });
});

describe('runSuites', () => {
  test('brings an environment up, runs the checks, cleans up the suite and tears the environment down', async () => {
    const s = suite();
    const { report, tornDown } = await runSuites([s], opts());
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([['T-ONE', 'passed']]);
    expect(provider.calls).toEqual(['up', 'down']);
    expect(tornDown).toBe(true);
    expect(s.cleaned).toBe(1);
  });

  test('keeps the environment with keep, and reuses it when the next spec matches', async () => {
    await runSuites([suite()], opts({ keep: true }));
    await runSuites([suite()], opts({ keep: true }));
    expect(provider.calls).toEqual(['up']);
  });

  test('restarts only the kubelet when only kubelet settings differ, and leaves a reused environment running', async () => {
    await runSuites([suite()], opts({ keep: true }));
    const { tornDown } = await runSuites(
      [suite({ config: { imagePullCredentialsVerificationPolicy: 'AlwaysVerify' } })],
      opts(),
    );
    expect(provider.calls).toEqual(['up', 'restartKubelet']);
    expect(tornDown).toBe(false);
  });

  test('a missing prerequisite skips the suite with the reason and the hint', async () => {
    const { report } = await runSuites(
      [
        suite({
          prepareError: new PrerequisiteError('docker-registry missing', { hint: 'apt-get install docker-registry' }),
        }),
      ],
      opts(),
    );
    expect(report.checks[0]).toMatchObject({
      status: 'skipped',
      message: 'could not prepare suite fake: docker-registry missing (hint: apt-get install docker-registry)',
    });
  });

  test('under CI=true a missing prerequisite is a failure, never a skip', async () => {
    const { report } = await runSuites(
      [suite({ prepareError: new PrerequisiteError('docker-registry missing') })],
      opts({ processEnv: { CI: 'true' } }),
    );
    expect(report.checks[0]).toMatchObject({ status: 'failed', cause: 'harness' });
  });

  test('a check a suite does not report is a harness failure, never silence', async () => {
    const { report } = await runSuites([suite({ outcome: 'drop' })], opts());
    expect(report.checks).toEqual([
      expect.objectContaining({
        id: CHECK.id,
        status: 'failed',
        cause: 'harness',
        message: `suite fake gave no result for check ${CHECK.id}`,
      }),
    ]);
  });

  test('what prepare deferred or owned is stopped, last first, also when prepare throws', async () => {
    const deferred: string[] = [];
    const { report } = await runSuites([suite({ prepareError: new Error('no registry'), deferred })], opts());
    expect(report.checks[0]).toMatchObject({ status: 'failed' });
    expect(deferred).toEqual(['owned', 'first']);
  });

  test('a missing capability skips the suite, naming it', async () => {
    provider.caps = { ...provider.caps, installPlugins: false };
    const { report } = await runSuites([suite({ needs: ['installPlugins'] })], opts());
    expect(report.checks[0]).toMatchObject({
      status: 'skipped',
      message: "provider local cannot install plugins into the kubelet's plugin dir (installPlugins)",
    });
  });

  test('a suite that throws fails every check as a harness failure, collects the component logs and still cleans up', async () => {
    const s = suite({ outcome: 'throw' });
    const { report } = await runSuites([s], opts());
    expect(report.checks[0]).toMatchObject({
      status: 'failed',
      cause: 'harness',
      message: 'suite fake broke: pod API exploded',
    });
    expect(s.cleaned).toBe(1);
    expect(provider.calls).toEqual(['up', 'collectLogs', 'down']);
  });

  test('a component that dies under a suite fails its checks at once, naming it; no later suite runs on that environment', async () => {
    let watching: AbortSignal | undefined;
    provider.watchComponents = (_env: Environment, signal: AbortSignal) => {
      watching = signal;
      return new Promise((resolve) =>
        setTimeout(() => resolve({ component: 'kubelet', why: 'panic: boom', logFile: '/l/kubelet.log' }), 50),
      );
    };
    const first = suite({ outcome: 'hang' });
    const second = suite({ name: 'later' });
    const t0 = Date.now();
    const { report, abandoned } = await runSuites([first, second], opts());
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(report.checks.map((c) => [c.suite, c.status, c.cause, c.message])).toEqual([
      [
        'fake',
        'failed',
        'harness',
        `kubelet died (panic: boom) during suite fake: no verdict (its log: ${join(state, 'artifacts', 'fake', 'logs', 'kubelet.log')})`,
      ],
      ['later', 'failed', 'harness', 'not run: kubelet died (panic: boom) during suite fake'],
    ]);
    expect(abandoned).toBe("suite fake, cut short by kubelet's death");
    expect(first.cleaned).toBe(1);
    expect(provider.calls).toEqual(['up', 'collectLogs', 'down']);
    expect(watching?.aborted).toBe(true);
  });

  test('the component watch ends with the suite when nothing dies', async () => {
    let watching: AbortSignal | undefined;
    provider.watchComponents = (_env: Environment, signal: AbortSignal) => {
      watching = signal;
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    };
    const { report, abandoned } = await runSuites([suite()], opts());
    expect(report.checks.map((c) => c.status)).toEqual(['passed']);
    expect(abandoned).toBeUndefined();
    expect(watching?.aborted).toBe(true);
  });

  test('on two lanes: each lane brings up its own environment, both run at once, the report keeps the order asked for, and both are torn down', async () => {
    // a and b each wait until both have started: on one lane this never happens, and the test times out.
    let arrived = 0;
    let bothStarted = () => {};
    const barrier = new Promise<void>((r) => (bothStarted = r));
    const slow = (name: string, waits: boolean): Suite => {
      const s = suite({ name });
      return {
        ...s,
        async prepare(ctx) {
          const prepared = await s.prepare(ctx);
          return {
            ...prepared,
            run: async (r) => {
              if (waits) {
                if (++arrived === 2) bothStarted();
                await barrier;
              }
              return [await runCheck({ ...CHECK, id: `T-${name}` }, () => pass(`on ${r.environment.name}`))];
            },
          };
        },
        checks: [{ ...CHECK, id: `T-${name}` }],
      };
    };
    const { report, tornDown } = await runSuites(
      [slow('a', true), slow('b', true), slow('c', false)],
      opts({ lanes: 2 }),
    );
    expect(report.checks.map((c) => c.id)).toEqual(['T-a', 'T-b', 'T-c']);
    expect(report.checks.every((c) => c.status === 'passed')).toBe(true);
    // Each suite ran wholly on one environment, x or x-2.
    expect(new Set(report.checks.map((c) => c.message))).toEqual(new Set(['on x', 'on x-2']));
    expect(provider.calls.filter((c) => c === 'up')).toHaveLength(2);
    expect(provider.calls.filter((c) => c === 'down')).toHaveLength(2);
    expect(tornDown).toBe(true);
  });

  test("the previous minor's kubelet a suite declares is asked for when the run starts, before any suite has run", async () => {
    const asked: string[] = [];
    const s: Suite = {
      ...suite(),
      kubelets: (v) => {
        asked.push(v);
        return [];
      },
    };
    await runSuites([s], opts());
    expect(asked).toEqual([DEFAULT_KUBE_VERSION]);
  });
});
