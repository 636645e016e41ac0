// What a plugin that leaves a daemon holding its stdout does to the real
// kubelet's image pull (KP-NO-STDOUT-HOLDER). The catalogue's
// broken-daemon-holds-stdout fixture, unmodified but for how long its setsid
// helper lives (CREDPROV_HOLD_SECONDS in the provider's env), is installed as
// two providers: one whose helper lets go after 15 s, one after 75 s (past the
// kubelet's 1 minute plugin timeout). A pod pulls through each, at once.
// credprov's prediction comes from its model of the kubelet's exec
// (src/model/plugin-exec.ts, read from plugin.go v1.37.1 and Go's os/exec);
// the test then watches the plugin's log, the helpers' lifetimes, the pods'
// events and outcome, the kubelet's log and its plugin error counter.
import { afterAll, describe, expect } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Auth, busyboxImage, processProvider, type StartedRegistry } from '../../registry/index.ts';
import { applyDefaults } from '../../src/api/spec/defaults.ts';
import { pluginErrors } from '../../src/certify/kubelet-plugin/live.ts';
import { kubectlJson } from '../../src/cluster/kubectl.ts';
import { localProvider } from '../../src/cluster/local/index.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { silentProgress } from '../../src/core/progress.ts';
import { kubeletExec, type KubeletExecPrediction } from '../../src/model/plugin-exec.ts';
import { pullFailure } from '../../src/run/lab.ts';
import { createPod, deletePod, podEvents, waitForPodOutcome, type PodOutcome } from '../../src/run/pods.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { killMarked, markedProcesses, newMarker, TEST_MARKER_ENV } from '../../src/testing/processes.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const available = await localProvider().isAvailable();
const it = testIf(
  all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }),
);
const ENV_NAME = e2eEnvName('holder');
const FIXTURE = fileURLToPath(new URL('../../fixtures/plugins/broken-daemon-holds-stdout', import.meta.url));
/** The fixture's scenario answers user credprov, password fake-password-for-<registry>, for *.registry.credprov.test. */
const password = (host: string) => `fake-password-for-${host}`;

interface Case {
  provider: string;
  host: string;
  holdSeconds: number;
  marker: string;
  registry?: StartedRegistry;
}
const CASES: Case[] = [
  { provider: 'holder-15s', host: 'short.registry.credprov.test', holdSeconds: 15, marker: newMarker() },
  { provider: 'holder-75s', host: 'long.registry.credprov.test', holdSeconds: 75, marker: newMarker() },
];

let dir: string | undefined;
let env: Environment | undefined;

interface Observed {
  /** Helper pids and when each was last seen alive (ms since epoch). */
  holders: Map<number, { firstSeen: number; lastSeen: number }>;
  outcome?: PodOutcome;
  outcomeAt?: number;
  failure?: string;
}

describe('a plugin that leaves a daemon holding its stdout, on the real kubelet', () => {
  afterAll(async () => {
    for (const c of CASES) killMarked(c.marker);
    await localProvider().down(ENV_NAME);
    for (const c of CASES) await c.registry?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 120_000);

  it('HOLDER-LIVE: the pull waits for the helper to let go (past the 1 min timeout, which does not cut it short), the kubelet kills nothing, and an answer that came after the minute is thrown away', async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-holder-'));
    const pluginLog = join(dir, 'plugin-invocations.jsonl');
    const image = await busyboxImage({ marker: 'credprov-holder' });
    for (const c of CASES) {
      c.registry = await processProvider().start({
        name: `${c.provider}-${Date.now().toString(36).slice(-4)}`,
        auth: Auth.htpasswd([{ username: 'credprov', password: password(c.host) }]),
        tls: true,
      });
      await c.registry.push(image, { name: 'holder/app', tag: 'v1' });
    }
    env = await localProvider().up(
      applyDefaults({
        name: ENV_NAME,
        ...(process.env.CREDPROV_KUBE_BIN_DIR ? { binDir: process.env.CREDPROV_KUBE_BIN_DIR } : {}),
        credentialProvider: {
          plugins: Object.fromEntries(CASES.map((c) => [c.provider, FIXTURE])),
          config: {
            apiVersion: 'kubelet.config.k8s.io/v1',
            kind: 'CredentialProviderConfig',
            providers: CASES.map((c) => ({
              name: c.provider,
              apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
              matchImages: [c.host],
              defaultCacheDuration: '0s',
              env: [
                { name: 'CREDPROV_HOLD_SECONDS', value: String(c.holdSeconds) },
                { name: 'CREDPROV_FAKE_LOG', value: pluginLog },
                { name: TEST_MARKER_ENV, value: c.marker },
              ],
            })),
          },
        },
      }),
      silentProgress,
    );
    for (const c of CASES) await c.registry!.serveAs(env.containerd!.certsDir, c.host);
    const metric = behaviourFor(env.kubeletVersion ?? env.kubeVersion).pluginErrorsMetric;
    const errorsBefore = await Promise.all(CASES.map((c) => pluginErrors(env!, metric, c.provider)));

    // Both pods at once: the credential lookup runs in each pod's own worker, before the image puller.
    const observed = new Map<string, Observed>(CASES.map((c) => [c.provider, { holders: new Map() }]));
    for (const c of CASES)
      await createPod(env, { name: c.provider, image: `${c.host}/holder/app:v1`, pullPolicy: 'Always' });
    const outcomes = Promise.all(
      CASES.map(async (c) => {
        const o = observed.get(c.provider)!;
        o.outcome = await waitForPodOutcome(env!, c.provider, 150_000);
        o.outcomeAt = Date.now();
        if (o.outcome.kind === 'pull-failed') o.failure = pullFailure(await podEvents(env!, c.provider), o.outcome);
      }),
    );
    // Meanwhile, every 250 ms: which helpers (by the marker each provider's env gives them) are alive.
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const now = Date.now();
        for (const c of CASES) {
          // The marker is in the plugin's environment too: the helper is the one running sleep.
          for (const pid of markedProcesses(c.marker).filter((p) => readCmdline(p).startsWith('sleep '))) {
            const h = observed.get(c.provider)!.holders.get(pid) ?? { firstSeen: now, lastSeen: now };
            h.lastSeen = now;
            observed.get(c.provider)!.holders.set(pid, h);
          }
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    await outcomes.finally(() => (watching = false));
    await watcher;
    // The error counter right after the outcomes, before the failed pod's retry can add to it.
    const errorsAfter = await Promise.all(CASES.map((c) => pluginErrors(env!, metric, c.provider)));
    const kubeletLog = await readFile(join(env.logsDir, 'kubelet.log'), 'utf8');
    const execs = (await readFile(pluginLog, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { time: string; image: string; durationMs: number });

    for (const [i, c] of CASES.entries()) {
      const o = observed.get(c.provider)!;
      const exec = execs.find((e) => e.image === `${c.host}/holder/app`);
      expect(exec).toBeDefined();
      const answeredAt = Date.parse(exec!.time);
      // The fake logs as it answers; the plugin process exits right after.
      const started = answeredAt - exec!.durationMs;
      const pullingAt = await eventTime(env, c.provider, 'Pulling');
      const predicted: KubeletExecPrediction = kubeletExec({
        exitsAtMs: answeredAt - started,
        outputsCloseAtMs: c.holdSeconds * 1000,
      });
      // The helper of this exec (a failed pull's retry may start another one later).
      const holders = [...o.holders.entries()].sort(([, a], [, b]) => a.firstSeen - b.firstSeen).slice(0, 1);
      const report = {
        provider: c.provider,
        kubelet: env.kubeletVersion,
        holdSeconds: c.holdSeconds,
        predicted,
        observed: {
          pullWaitedMs: pullingAt !== undefined ? pullingAt - started : undefined,
          outcome: o.outcome?.kind,
          failure: o.failure,
          holderLivedMs: holders.map(([, h]) => h.lastSeen - started),
          errorsRose: errorsAfter[i]!.value - errorsBefore[i]!.value,
          kubeletError: kubeletLog
            .split('\n')
            .find(
              (l) => l.includes('Failed to provide credentials for image') && l.includes(`provider="${c.provider}"`),
            )
            ?.slice(0, 400),
        },
      };
      process.stderr.write(`${JSON.stringify(report)}\n`);

      // The pull waits for the helper: the Pulling event comes when it lets go (events have second precision).
      // (the start is estimated from the plugin's answer, after its interpreter started: a little late under load)
      expect(report.observed.pullWaitedMs).toBeGreaterThanOrEqual(predicted.returnsAtMs - 2500);
      expect(report.observed.pullWaitedMs).toBeLessThan(predicted.returnsAtMs + 4000);
      // Nobody killed the helper: it lived its whole hold, past the minute for the long one.
      expect(holders.length).toBeGreaterThan(0);
      expect(Math.max(...report.observed.holderLivedMs)).toBeGreaterThanOrEqual(c.holdSeconds * 1000 - 2000);
      expect(predicted.killsHolder).toBe(false);
      if (predicted.result === 'answer-used') {
        expect(report.observed.outcome).toBe('completed');
        expect(report.observed.errorsRose).toBe(0);
        expect(report.observed.kubeletError).toBeUndefined();
      } else {
        // The valid answer, decoded after the deadline, is dropped: the pull goes on without credentials.
        expect(report.observed.outcome).toBe('pull-failed');
        expect(report.observed.failure).toBe('unauthorized');
        expect(report.observed.kubeletError).toMatch(/context deadline exceeded/);
        expect(report.observed.errorsRose).toBe(1);
      }
      await deletePod(env, c.provider);
    }
  }, 420_000);
});

/** When the kubelet recorded an event of this reason for the pod (ms since epoch; the API keeps seconds). */
async function eventTime(env: Environment, pod: string, reason: string): Promise<number | undefined> {
  const list = await kubectlJson<{ items: Array<{ reason: string; firstTimestamp?: string; eventTime?: string }> }>(
    { kubectl: env.kubectl, kubeconfig: env.kubeconfig },
    ['get', 'events', '--field-selector', `involvedObject.name=${pod}`],
  );
  const e = list.items.find((x) => x.reason === reason);
  const t = e?.eventTime ?? e?.firstTimestamp;
  return t ? Date.parse(t) : undefined;
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}
