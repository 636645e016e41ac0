// The three field clients' probes (fabric8, kube-rs, kubernetes_asyncio)
// against credprov's scripted HTTPS endpoint with the fake exec plugin: a
// session works, the plugin runs as often as the draft behaviour rows say,
// KUBERNETES_EXEC_INFO is as they say, and every draft decoding row with a
// scenario gives the verdict it predicts. A probe that is not built skips
// with the command that builds it; under CI it fails with that reason
// (`credprov binaries ensure --for tests` builds the three as late builds).
// Last, kube-rs's typed reading (fieldKinds, jiff's timestamps) against the
// real kube-rs on generated answers, as src/differential/exec.test.ts does
// for the core clients: here, because this file runs after the probes are
// built (300 answers, one probe process each: ~11-18 s).
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { V1BETA1, type ExecConfig } from '../api/exec/types.ts';
import { killMarked, newMarker, TEST_MARKER_ENV } from '../testing/processes.ts';
import { testIf } from '../testing/prerequisites.ts';
import { useTempDir } from '../testing/tmp.ts';
import { issueClientCertificate } from '../core/client-cert.ts';
import { EXEC_V1, execAnswer, type GeneratedExecAnswer } from '../differential/exec-arbitraries.ts';
import { printing, startBatchClients } from '../differential/exec-clients.ts';
import { differential } from '../differential/run.ts';
import { answerFindings, predictClient } from './decoding.ts';
import { FIELD_CLIENT_NAMES, fieldProbeFor, type FieldClientName, type FieldClientProbe } from './field-clients.ts';
import { FIELD_RULES as RULES } from './field-decoding.ts';
import { writeProbeKubeconfig } from './kubeconfig.ts';
import { startScriptedEndpoint, verdictAtEndpoint, type ScriptedEndpoint } from './scripted-endpoint.ts';

const FAKE = resolve('fixtures/fake-exec-plugin/fake-exec-plugin');
/** Plugin runs before the first answer, per the behaviour rows' runsAtStart. */
const RUNS_AT_START: Record<FieldClientName, number> = { fabric8: 1, 'kube-rs': 3, 'kubernetes-asyncio': 1 };

const tmp = useTempDir('credprov-field-probes-');
const marker = newMarker();
const env = { ...process.env, CREDPROV_NODE: process.execPath, [TEST_MARKER_ENV]: marker };
let endpoint: ScriptedEndpoint;
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
}

async function setup(name: string, scenario: Record<string, unknown>, exec: Partial<ExecConfig> = {}) {
  const log = join(tmp(), `${name}.jsonl`);
  // In a file: a control character in the scenario (a DEL in a token) would otherwise sit raw in the kubeconfig,
  // which kube-rs's YAML parser refuses before any plugin runs.
  const scenarioFile = join(tmp(), `${name}.scenario.json`);
  writeFileSync(scenarioFile, JSON.stringify({ ...scenario, log }));
  const config: ExecConfig = {
    command: FAKE,
    args: ['--scenario', `@${scenarioFile}`],
    env: [],
    apiVersion: V1BETA1,
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
  const runs = (): FakeRun[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as FakeRun)
      : [];
  return { kubeconfig, runs };
}

function describeClient(probe: FieldClientProbe, availability: { ok: boolean; reason?: string }) {
  const it = testIf(availability.ok ? { ok: true } : { ok: false, reason: `${probe.name}: ${availability.reason}` });
  const c = probe.name;
  const rules = RULES[c];
  describe(`field client ${c}`, () => {
    it(`${c}: requests carry the plugin's token; the plugin ran as runsAtStart says; KUBERNETES_EXEC_INFO as execInfo says`, async () => {
      const { kubeconfig, runs } = await setup(`${c}-good`, {});
      const session = await probe.start({ kubeconfig }, { env, timeoutMs: 60_000 });
      try {
        const path = `/version?client=${c}`;
        const answers = [await session.request(path), await session.request(path), await session.request(path)];
        expect(answers.map((a) => [a.status, a.error])).toEqual([
          [200, undefined],
          [200, undefined],
          [200, undefined],
        ]);
        expect(
          endpoint
            .requests()
            .filter((r) => r.url === path)
            .map((r) => r.credential?.kind),
        ).toEqual(['bearer', 'bearer', 'bearer']);
        expect(runs()).toHaveLength(RUNS_AT_START[c]);
        const info = runs()[0]!.execInfo;
        if (rules.behaviour.execInfo.startsWith('never')) expect(info).toBeNull();
        else expect(JSON.parse(info!)).toMatchObject({ apiVersion: V1BETA1, kind: 'ExecCredential' });
      } finally {
        await session.close();
      }
    }, 180_000);

    const rows = Object.entries(rules.decoding).filter(([, row]) => row.scenario);
    for (const [trait, row] of rows) {
      const hangs = row.says === 'no answer within';
      it(`${c}: ${trait} → ${row.verdict}${row.says ? ` ("${row.says}")` : ''}`, async () => {
        const { kubeconfig } = await setup(
          `${c}-${trait}`,
          row.scenario!,
          row.execApiVersion ? { apiVersion: row.execApiVersion as ExecConfig['apiVersion'] } : {},
        );
        const path = `/version?client=${c}&trait=${trait}`;
        const before = endpoint.rejections().length;
        const session = await probe.start({ kubeconfig }, { env, timeoutMs: hangs ? 5_000 : 60_000 });
        try {
          const a = await session.request(path);
          const seen = endpoint.requests().filter((r) => r.url === path);
          expect({ trait, verdict: verdictAtEndpoint(seen, endpoint.rejections().slice(before)) }).toEqual({
            trait,
            verdict: row.verdict,
          });
          if (row.says) expect(`${a.error ?? ''}\n${session.log()}`).toContain(row.says);
        } finally {
          await session.close();
        }
      }, 180_000);
    }
  });
}

const probes = await Promise.all(
  FIELD_CLIENT_NAMES.map(async (name) => {
    const probe = fieldProbeFor(name);
    return { probe, availability: await probe.available() };
  }),
);
for (const { probe, availability } of probes) describeClient(probe, availability);

const kubeRs = probes.find((p) => p.probe.name === 'kube-rs')!;
describe('differential: kube-rs on generated answers', () => {
  const it = testIf(
    kubeRs.availability.ok ? { ok: true } : { ok: false, reason: `kube-rs: ${kubeRs.availability.reason}` },
  );
  it('credprov predicts what kube-rs makes of each answer (fieldKinds, jiff timestamps)', async () => {
    const { clients } = await startBatchClients(tmp(), env, ['kube-rs']);
    const client = clients[0]!;
    const a = issueClientCertificate();
    const cert = { certPem: a.certPem, keyPem: a.keyPem, otherKeyPem: issueClientCertificate().keyPem };
    let n = 0;
    const compare = async (c: GeneratedExecAnswer) => {
      const file = join(tmp(), `answer-${++n}`);
      writeFileSync(file, c.stdout);
      const findings = answerFindings({ exitCode: c.exitCode, timedOut: false, stdout: c.stdout, stderr: '' }, EXEC_V1);
      const real = await client.judge(printing(file, c.exitCode), n);
      const predicted = predictClient('kube-rs', findings);
      return predicted.verdict === real.verdict
        ? undefined
        : {
            kind: `kube-rs: credprov ${predicted.verdict} (${predicted.row?.trait ?? 'no row'}), real ${real.verdict}`,
            detail: { answer: c, findings, real },
          };
    };
    try {
      const s = await differential('exec answers (kube-rs)', execAnswer(cert), compare, { runs: 300 });
      expect([...s.disagreements.keys()]).toEqual([]);
    } finally {
      await client.close();
    }
  }, 900_000);
});
