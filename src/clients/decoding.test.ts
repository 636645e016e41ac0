// Keeps the client difference tables (decoding.ts) true: every row is run
// through every real client, with the fake plugin scripted to answer that
// way, against credprov's scripted endpoint. A client the machine lacks skips
// with how to get it (fails under CI=true). Also checks that credprov's trait
// detection finds each row's trait in credprov's own run of the same plugin,
// so certify's predictions (predictClient) start from the right traits.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { V1, type ExecConfig } from '../api/exec/types.ts';
import { InvocationLog } from '../plugin/invocation.ts';
import { runExecPlugin } from '../plugin/client-exec.ts';
import { testIf } from '../testing/prerequisites.ts';
import { useTempDir } from '../testing/tmp.ts';
import { answerFindings, DECODING, INVOCATION, predictClient, type Verdict } from './decoding.ts';
import { availableProbes } from './index.ts';
import { writeProbeKubeconfig } from './kubeconfig.ts';
import type { ClientName, ClientProbe } from './probe.ts';
import { startScriptedEndpoint, verdictAtEndpoint, type ScriptedEndpoint } from './scripted-endpoint.ts';
import { startBatchClients } from '../differential/exec-clients.ts';

const FAKE = resolve('fixtures/fake-exec-plugin/fake-exec-plugin');
const probes = await availableProbes();
const tmp = useTempDir('credprov-decoding-');
const env = { ...process.env, CREDPROV_NODE: process.execPath };
let endpoint: ScriptedEndpoint;
let counter = 0;

beforeAll(async () => {
  endpoint = await startScriptedEndpoint();
});
afterAll(async () => {
  await endpoint?.stop();
});

/** JSON with every character outside printable ASCII escaped: a kubeconfig (YAML) may hold no control character. */
const asciiJson = (v: unknown) =>
  JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

interface Observation {
  verdict: Verdict;
  error?: string;
  runs: Array<{ execInfo: string | null; interactive?: boolean }>;
}

/** One request through `probe` with the fake plugin: what reached the endpoint decides the verdict. */
async function observe(
  probe: ClientProbe,
  scenario: Record<string, unknown>,
  exec: Partial<ExecConfig> = {},
  terminal = false,
  command = FAKE,
  timeoutMs = 30_000,
): Promise<Observation> {
  const n = ++counter;
  const log = join(tmp(), `run-${n}.jsonl`);
  const config: ExecConfig = {
    command,
    args: ['--scenario', asciiJson({ ...scenario, log })],
    env: [],
    apiVersion: V1,
    interactiveMode: 'Never',
    provideClusterInfo: false,
    ...exec,
  };
  const kubeconfig = await writeProbeKubeconfig(join(tmp(), `run-${n}.kubeconfig`), {
    server: endpoint.server,
    caPem: endpoint.caPem,
    exec: config,
    resolvedCommand: command,
    ...(config.provideClusterInfo ? { clusterConfig: { audience: 'credprov' } } : {}),
  });
  const path = `/version?run=${n}`;
  const rejectedBefore = endpoint.rejections().length;
  const session = await probe.start({ kubeconfig }, { env, timeoutMs, terminal });
  try {
    const a = await session.request(path);
    const seen = endpoint.requests().filter((r) => r.url === path);
    const verdict = verdictAtEndpoint(seen, endpoint.rejections().slice(rejectedBefore));
    const runs = existsSync(log)
      ? (await readFile(log, 'utf8'))
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Observation['runs'][number])
      : [];
    return { verdict, ...(a.error ? { error: a.error } : {}), runs };
  } finally {
    await session.close();
  }
}

/**
 * Every row's answer through every client, the clients side by side (each one row at a time, against an
 * endpoint of its own): client-go and Python in one process each, judging one kubeconfig per row (their
 * probes' batch mode), kubectl one process per row as users run it, client-node in this process. A row
 * whose plugin hangs needs a deadline per request, so it goes through a session of its own (observe).
 */
const batched = new Map<string, Observation>();
beforeAll(async () => {
  const { clients } = await startBatchClients(tmp(), env);
  try {
    await Promise.all(
      clients.map(async (client) => {
        for (const row of DECODING) {
          if (row.reproduce.timeoutMs) continue;
          const got = await client.judge(
            { command: FAKE, args: ['--scenario', asciiJson(row.reproduce.scenario)] },
            ++counter,
          );
          batched.set(`${client.name} ${row.trait}`, { ...got, runs: [] });
        }
      }),
    );
  } finally {
    for (const client of clients) await client.close();
  }
}, 600_000);

for (const { probe, availability } of probes) {
  const it = testIf(
    availability.ok
      ? { ok: true }
      : { ok: false, reason: `${probe.name}: ${availability.ok ? '' : availability.reason}` },
  );
  const c: ClientName = probe.name;
  describe(`client differences, as ${c} shows them`, () => {
    for (const row of DECODING) {
      it(`${c}: ${row.trait} (${row.answer})`, async () => {
        const expected = row.clients[c];
        const got =
          batched.get(`${c} ${row.trait}`) ??
          (await observe(probe, row.reproduce.scenario, {}, false, FAKE, row.reproduce.timeoutMs));
        expect({
          verdict: got.verdict,
          says: expected.says && got.error?.includes(expected.says) ? expected.says : got.error,
        }).toEqual({ verdict: expected.verdict, says: expected.says ?? got.error });
      }, 120_000);
    }

    it(`${c}: how it runs the plugin (KUBERNETES_EXEC_INFO, interactiveMode, provideClusterInfo)`, async () => {
      const row = (id: string) => INVOCATION.find((r) => r.id === id)!.observed[c];
      const plain = await observe(probe, {});
      expect(plain.runs[0]?.execInfo !== null).toBe(row('exec-info'));

      const never = await observe(probe, {}, { interactiveMode: 'Never' }, true);
      expect(Boolean(never.runs[0]?.interactive)).toBe(row('never-with-terminal'));

      const always = await observe(probe, {}, { interactiveMode: 'Always' });
      expect(always.runs.length > 0).toBe(row('always-without-terminal'));

      const info = await observe(probe, {}, { provideClusterInfo: true });
      const raw = info.runs[0]?.execInfo;
      const cluster = raw
        ? (JSON.parse(raw) as { spec: { cluster?: Record<string, unknown> } }).spec.cluster
        : undefined;
      expect(cluster ? Object.keys(cluster).sort() : null).toEqual(row('provide-cluster-info'));

      // stdin: a wrapper records what fd 0 is, then runs the fake plugin.
      const wrapper = join(tmp(), `stdin-${c}`);
      const record = join(tmp(), `stdin-${c}.txt`);
      await writeFile(
        wrapper,
        `#!/bin/sh\nreadlink /proc/self/fd/0 > ${JSON.stringify(record)}\nexec ${JSON.stringify(FAKE)} "$@"\n`,
      );
      await chmod(wrapper, 0o755);
      await observe(probe, {}, {}, false, wrapper);
      const fd0 = (await readFile(record, 'utf8')).trim();
      // Node's child_process pipes are socket pairs.
      expect(/^(pipe|socket):/.test(fd0) ? 'pipe' : fd0).toBe(row('stdin-not-interactive'));
    }, 180_000);
  });
}

describe("trait detection: credprov's own run of each row's plugin shows the row's trait", () => {
  test.each(DECODING.map((row) => [row.trait, row] as const))(
    '%s',
    async (trait, row) => {
      const inv = await runExecPlugin(
        {
          config: {
            command: FAKE,
            args: ['--scenario', JSON.stringify(row.reproduce.scenario)],
            env: [],
            apiVersion: V1,
            interactiveMode: 'Never',
            provideClusterInfo: false,
          },
          baseDir: '/',
        },
        {
          log: new InvocationLog(),
          timeoutMs: row.reproduce.timeoutMs ?? 30_000,
          stdin: { kind: 'none' },
          parentEnv: env,
        },
      );
      const traits = answerFindings(inv, V1);
      expect(traits.map((f) => f.trait)).toContain(trait);
      // And the prediction for each client is that row's outcome, or an earlier one in its check order.
      for (const c of ['kubectl', 'client-go', 'client-node', 'python'] as const) {
        const p = predictClient(c, traits);
        if (row.clients[c].verdict !== 'accepts') expect([c, p.verdict]).toEqual([c, row.clients[c].verdict]);
      }
    },
    60_000,
  );
});
