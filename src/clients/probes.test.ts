// Each real client probe against credprov's scripted HTTPS endpoint, with the
// fake exec plugin (its JSONL log is the record of what the plugin was asked).
// A client this machine lacks skips with the reason how to get it, and fails
// under CI=true (scripts/setup.sh and scripts/test.sh install all four).
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { V1, type ExecConfig } from '../api/exec/types.ts';
import { Redactor } from '../core/redact.ts';
import { killMarked, markedProcesses, newMarker, TEST_MARKER_ENV } from '../testing/processes.ts';
import { testIf } from '../testing/prerequisites.ts';
import { useTempDir } from '../testing/tmp.ts';
import { availableProbes } from './index.ts';
import { CLIENT_NODE_NO_TERMINAL } from './client-node.ts';
import { writeProbeKubeconfig } from './kubeconfig.ts';
import type { ClientName, ClientProbe } from './probe.ts';
import { startScriptedEndpoint, type ScriptedEndpoint } from './scripted-endpoint.ts';

const FAKE = resolve('fixtures/fake-exec-plugin/fake-exec-plugin');
const probes = await availableProbes();
const tmp = useTempDir('credprov-probes-');
let endpoint: ScriptedEndpoint;
const marker = newMarker();
// The fake plugin is a Node script: it needs this Node, not whatever node is on PATH.
const env = { ...process.env, CREDPROV_NODE: process.execPath, [TEST_MARKER_ENV]: marker };

beforeAll(async () => {
  endpoint = await startScriptedEndpoint();
});
afterAll(async () => {
  killMarked(marker);
  await endpoint?.stop();
});

interface FakeRun {
  execInfo: string | null;
  interactive?: boolean;
  exitCode: number;
}

async function setup(
  name: string,
  scenario: Record<string, unknown>,
  exec: Partial<ExecConfig> = {},
): Promise<{ kubeconfig: string; runs: () => Promise<FakeRun[]> }> {
  const log = join(tmp(), `${name}.jsonl`);
  const config: ExecConfig = {
    command: FAKE,
    args: ['--scenario', JSON.stringify({ ...scenario, log })],
    env: [],
    apiVersion: V1,
    interactiveMode: 'Never',
    provideClusterInfo: false,
    ...exec,
  };
  const kubeconfig = await writeProbeKubeconfig(join(tmp(), `${name}.kubeconfig`), {
    server: endpoint.server,
    caPem: endpoint.caPem,
    exec: config,
    resolvedCommand: FAKE,
  });
  const runs = async () =>
    existsSync(log)
      ? (await readFile(log, 'utf8'))
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as FakeRun)
      : [];
  return { kubeconfig, runs };
}

function describeClient(probe: ClientProbe<ClientName>, availability: { ok: boolean; reason?: string }) {
  const it = testIf(availability.ok ? { ok: true } : { ok: false, reason: `${probe.name}: ${availability.reason}` });
  const c: ClientName = probe.name;
  describe(`client probe ${c}`, () => {
    it(`${c}: a request goes out with the plugin's token and gets 200; the plugin ran`, async () => {
      const { kubeconfig, runs } = await setup(`${c}-good`, {});
      const session = await probe.start({ kubeconfig }, { env, timeoutMs: 30_000 });
      try {
        const path = `/version?client=${c}`;
        const answers = [await session.request(path), await session.request(path)];
        expect(answers.map((a) => [a.seq, a.status, a.error])).toEqual([
          [1, 200, undefined],
          [2, 200, undefined],
        ]);
        const seen = endpoint.requests().filter((r) => r.url === path);
        expect(seen.map((r) => r.credential?.kind)).toEqual(['bearer', 'bearer']);
        expect((await runs()).length).toBeGreaterThanOrEqual(1);
      } finally {
        await session.close();
      }
    }, 90_000);

    it(`${c}: an answer the client refuses comes back as the client's error, and no credential reaches the server`, async () => {
      const { kubeconfig } = await setup(`${c}-no-status`, { omitStatus: true });
      const session = await probe.start({ kubeconfig }, { env, timeoutMs: 30_000 });
      try {
        const path = `/version?client=${c}&case=no-status`;
        const a = await session.request(path);
        expect(a.error).toBeTruthy();
        expect(endpoint.requests().filter((r) => r.url === path && r.credential)).toEqual([]);
      } finally {
        await session.close();
      }
    }, 90_000);

    it(`${c}: a plugin that never answers ends the request at timeoutMs and is killed`, async () => {
      const { kubeconfig } = await setup(`${c}-hang`, { delayMs: 120_000 });
      const session = await probe.start({ kubeconfig }, { env, timeoutMs: 2_000 });
      try {
        const a = await session.request(`/version?client=${c}&case=hang`);
        expect(a.error).toMatch(/^no answer within 2(\.0+)?s: /);
        expect(a.ms).toBeLessThan(10_000);
      } finally {
        await session.close();
      }
      // The plugin is gone: killed with the client, or by the probe.
      for (let i = 0; i < 20 && markedProcesses(marker).some(isFakePluginOf(`${c}-hang`)); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(markedProcesses(marker).filter(isFakePluginOf(`${c}-hang`))).toEqual([]);
    }, 90_000);

    it(`${c}: with terminal: true the plugin is told it is interactive, or the session says why not`, async () => {
      const { kubeconfig, runs } = await setup(`${c}-tty`, {}, { interactiveMode: 'IfAvailable' });
      const session = await probe.start({ kubeconfig }, { env, timeoutMs: 30_000, terminal: true });
      try {
        const a = await session.request(`/version?client=${c}&case=tty`);
        expect(a.status).toBe(200);
        const [run] = await runs();
        if (c === 'client-node') {
          expect(session.notes).toContain(CLIENT_NODE_NO_TERMINAL);
          expect(run?.execInfo).toBeNull();
        } else {
          expect(session.notes ?? []).toEqual([]);
          expect(run?.interactive).toBe(true);
        }
      } finally {
        await session.close();
      }
    }, 90_000);

    it(`${c}: log() and errors hide the secrets the caller registers`, async () => {
      const { kubeconfig } = await setup(`${c}-leak`, { token: 'leaky-token-0123456789', secretsOnStderr: true });
      const redactor = new Redactor().add('leaky-token-0123456789');
      const session = await probe.start({ kubeconfig }, { env, timeoutMs: 30_000, redactor });
      try {
        const a = await session.request(`/version?client=${c}&case=leak`);
        expect(`${a.error ?? ''}\n${session.log()}`).not.toContain('leaky-token-0123456789');
      } finally {
        await session.close();
      }
    }, 90_000);
  });
}

/** A predicate on pids: is it the fake plugin run for this case (its argv names the case's log)? */
function isFakePluginOf(name: string): (pid: number) => boolean {
  return (pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`${name}.jsonl`);
    } catch {
      return false;
    }
  };
}

for (const { probe, availability } of probes) describeClient(probe, availability);
