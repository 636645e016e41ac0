// Runs certify exec-plugin's client matrix through the three field clients
// (fabric8, kube-rs, kubernetes_asyncio) for every catalogue plugin with
// `refusedBy` and every odd answer in fixtures/fake-exec-plugin/odd-answers,
// and prints each client's verdict beside credprov's prediction: a
// disagreement is a model fix or a finding (docs/findings.md). The odd answers
// run under an exec apiVersion v1beta1 kubeconfig: the fake plugin answers
// v1beta1 when KUBERNETES_EXEC_INFO is unset, so they reach fabric8's token
// handling too (under v1 fabric8 drops them all: finding 30; the catalogue
// plugins keep their own apiVersion and show that).
// Run: node scripts/field-odd-answers.ts [--json FILE]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ExecConfig } from '../src/api/exec/types.ts';
import { certifyExecPlugin } from '../src/certify/exec-plugin/certify.ts';
import type { MatrixClient } from '../src/certify/exec-plugin/clients.ts';
import { availableProbes } from '../src/clients/index.ts';
import { FIELD_CLIENT_NAMES } from '../src/clients/probe.ts';
import { parseGoDuration } from '../src/core/duration.ts';
import { Redactor } from '../src/core/redact.ts';
import { InvocationLog } from '../src/plugin/invocation.ts';

const { values } = parseArgs({ options: { json: { type: 'string' } } });
const FIXTURES = resolve('fixtures');
const probes = await availableProbes({}, FIELD_CLIENT_NAMES);
const missing = probes.filter((p) => !p.availability.ok);
if (missing.length) {
  console.error(`missing: ${missing.map((p) => p.probe.name).join(', ')} (node scripts/build-field.ts)`);
  process.exit(2);
}
const clients: MatrixClient[] = probes.map((p) => ({
  probe: p.probe,
  version: p.availability.ok ? p.availability.version : '',
}));
interface Entry {
  name: string;
  apiVersion: string;
  timeout?: string;
  refusedBy?: string[];
}
const catalogue = (
  JSON.parse(readFileSync(resolve(FIXTURES, 'exec-plugins/catalogue.json'), 'utf8')).plugins as Entry[]
)
  .filter((e) => e.refusedBy)
  .map((e) => ({
    name: e.name,
    config: { command: `exec-plugins/${e.name}`, args: [], apiVersion: e.apiVersion },
    timeoutMs: e.timeout ? parseGoDuration(e.timeout)! : 5_000,
  }));
const odd = readdirSync(resolve(FIXTURES, 'fake-exec-plugin/odd-answers')).map((f) => ({
  name: `odd-answers/${f}`,
  config: {
    command: 'fake-exec-plugin/fake-exec-plugin',
    args: ['--scenario', `@${resolve(FIXTURES, 'fake-exec-plugin/odd-answers', f)}`],
    apiVersion: 'client.authentication.k8s.io/v1beta1',
  },
  timeoutMs: 5_000,
}));
const rows: Array<Record<string, unknown>> = [];
const queue = [...catalogue, ...odd];
await Promise.all(
  [0, 1].map(async () => {
    for (let e = queue.shift(); e; e = queue.shift()) {
      const { checks } = await certifyExecPlugin(
        {
          config: {
            env: [],
            interactiveMode: 'Never',
            provideClusterInfo: false,
            ...e.config,
          } as ExecConfig,
          baseDir: FIXTURES,
        },
        {
          log: new InvocationLog(undefined, new Redactor()),
          timeoutMs: e.timeoutMs,
          parentEnv: { ...process.env, CREDPROV_NODE: process.execPath },
          redactor: new Redactor(),
          clients,
        },
      );
      for (const c of checks.filter((x) => x.id.startsWith('EP-CLIENT-'))) {
        const row = {
          plugin: e.name,
          check: c.id,
          status: c.status,
          agree: c.comparison?.agree,
          predicted: c.comparison?.predicted,
          observed: c.comparison?.observed,
          message: c.message,
        };
        rows.push(row);
        console.log(`${row.agree === false ? 'DISAGREE' : 'ok      '} ${e.name} ${c.id} ${c.status}: ${c.message}`);
      }
    }
  }),
);
if (values.json) writeFileSync(values.json, `${JSON.stringify(rows, null, 2)}\n`);
const disagree = rows.filter((r) => r.agree === false).length;
console.log(`\n${rows.length} client verdicts, ${disagree} disagree with credprov's prediction`);
