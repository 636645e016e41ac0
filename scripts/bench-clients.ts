// Benchmark of `credprov certify exec-plugin --clients`: what each real client
// adds to the certification of a well-behaved plugin (the fake exec plugin).
//   (a) per client: its wall time in the matrix (client start, one request
//       through the plugin, close), from the certification's own metrics;
//   (b) the whole certification as a library call: no clients, each client
//       alone, all four;
//   (c) the CLI process end to end, with every available client and with --clients none.
// Run: node scripts/bench-clients.ts [--runs N]
// Figures are medians over N runs; the machine is shared, so compare runs made
// back to back, not across days.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { certifyExecPlugin } from '../src/certify/exec-plugin/certify.ts';
import type { MatrixClient } from '../src/certify/exec-plugin/clients.ts';
import { availableProbes } from '../src/clients/index.ts';
import type { ExecClientName } from '../src/clients/probe.ts';
import { Redactor } from '../src/core/redact.ts';
import type { ExecPlugin } from '../src/plugin/client-exec.ts';
import { InvocationLog } from '../src/plugin/invocation.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FAKE = join(ROOT, 'fixtures/fake-exec-plugin/fake-exec-plugin');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
const env = { ...process.env, CREDPROV_NODE: process.execPath };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const plugin: ExecPlugin = {
  config: {
    command: FAKE,
    args: [],
    env: [],
    apiVersion: 'client.authentication.k8s.io/v1',
    interactiveMode: 'Never',
    provideClusterInfo: false,
  },
  baseDir: ROOT,
};

async function certify(
  clients: MatrixClient[],
): Promise<{ totalMs: number; clientMs: Partial<Record<ExecClientName, number>> }> {
  const t0 = performance.now();
  const r = await certifyExecPlugin(plugin, {
    log: new InvocationLog(),
    timeoutMs: 30_000,
    parentEnv: env,
    redactor: new Redactor(),
    clients,
  });
  const failed = r.checks.filter((c) => c.status === 'failed');
  if (failed.length)
    throw new Error(
      `the fake plugin failed ${failed.map((c) => `${c.id}: ${c.message}`).join('; ')}; the benchmark would be meaningless`,
    );
  return {
    totalMs: performance.now() - t0,
    clientMs: (r.metrics.clientMs ?? {}) as Partial<Record<ExecClientName, number>>,
  };
}

const available = await availableProbes();
for (const p of available)
  if (!p.availability.ok) console.log(`${p.probe.name}: not available (${p.availability.reason}); left out`);
const clients: MatrixClient[] = available.flatMap((p) =>
  p.availability.ok ? [{ probe: p.probe, version: p.availability.version }] : [],
);

const none: number[] = [];
const alone = new Map<ExecClientName, { total: number[]; client: number[] }>();
const together: number[] = [];
const inMatrix = new Map<ExecClientName, number[]>();
for (let i = 0; i < runs; i++) {
  none.push((await certify([])).totalMs);
  for (const c of clients) {
    const r = await certify([c]);
    const a = alone.get(c.probe.name) ?? { total: [], client: [] };
    a.total.push(r.totalMs);
    a.client.push(r.clientMs[c.probe.name]!);
    alone.set(c.probe.name, a);
  }
  const all = await certify(clients);
  together.push(all.totalMs);
  for (const c of clients)
    inMatrix.set(c.probe.name, [...(inMatrix.get(c.probe.name) ?? []), all.clientMs[c.probe.name]!]);
}

console.log(
  `\n(a) per client, in the matrix of all ${clients.length} (client start + one request through the plugin + close), medians of ${runs}:`,
);
for (const c of clients)
  console.log(`  ${c.probe.name.padEnd(12)} ${c.version.padEnd(9)} ${fmt(median(inMatrix.get(c.probe.name)!))}`);
console.log(`\n(b) certify exec-plugin of the fake plugin, library call, medians of ${runs}:`);
console.log(`  no clients (credprov's own 14 runs)   ${fmt(median(none))}`);
for (const c of clients) {
  const a = alone.get(c.probe.name)!;
  console.log(
    `  with ${c.probe.name.padEnd(12)} alone          ${fmt(median(a.total))} (the client: ${fmt(median(a.client))})`,
  );
}
console.log(`  with all ${clients.length}                       ${fmt(median(together))}`);

const out = await mkdtemp(join(tmpdir(), 'credprov-bench-clients-'));
try {
  const cli = async (extra: string[]): Promise<number[]> => {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await execa(
        process.execPath,
        [
          join(ROOT, 'bin/credprov.js'),
          'certify',
          'exec-plugin',
          '--command',
          FAKE,
          '--api-version',
          'client.authentication.k8s.io/v1',
          '--interactive-mode',
          'Never',
          ...extra,
          '--report-dir',
          join(out, `${extra.join('-')}${i}`),
        ],
        { env },
      );
      times.push(performance.now() - t0);
    }
    return times;
  };
  const every = await cli([]);
  const noClients = await cli(['--clients', 'none']);
  console.log(`\n(c) the CLI process end to end (node startup, client availability, reports written):`);
  console.log(`  every available client   ${fmt(median(every))}`);
  console.log(`  --clients none           ${fmt(median(noClients))}`);
} finally {
  await rm(out, { recursive: true, force: true });
}
