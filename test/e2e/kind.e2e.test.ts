// The kind tier, and the kind leg of the e2e table: the credprov commands of
// examples/github-actions/kind.yml, flags included, run here in order (an
// offline node image, a cluster of a control plane and one worker, the smoke
// suite, down), and between `up` and `run` every suite of the table whose
// needs kind meets (suite-table.ts), on that one cluster, one jest test per
// check: the same predictions as on the local provider, and the checks of a
// capability kind lacks skipped with that reason (SA-TOKEN-OTHER-NODE, which
// needs two nodes, passes here). After down nothing of the cluster is left: no
// node container, no kind network, no image build dir, no fake's exchange dir,
// and credprov's own engine stopped when it started one.
import { afterAll, describe, expect } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { kindProvider } from '../../src/cluster/kind/index.ts';
import { OWN_ENGINE_RUN_DIR, resolveEngine } from '../../src/cluster/kind/engine.ts';
import { cacheDir, exchangeDir } from '../../src/core/paths.ts';
import { runCli } from '../../src/testing/cli.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { RecordingRedactor } from '../../src/testing/secret-scan.ts';
import { suitesRun } from '../../src/testing/suite-on-provider.ts';
import { execa } from 'execa';
import { SUITE_TABLE } from './suite-table.ts';
import { rowTests } from './suite-table-tests.ts';

const available = await kindProvider().isAvailable();
const it = testIf(all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `kind: ${available.reason}` }));
const NAME = e2eEnvName('kind');
const WORKFLOW = join(import.meta.dirname, '..', '..', 'examples', 'github-actions', 'kind.yml');

/** The workflow's credprov commands, in order, as argv (the environment renamed for this test). */
async function workflowCommands(): Promise<string[][]> {
  const doc = parse(await readFile(WORKFLOW, 'utf8')) as { jobs: { kind: { steps: Array<{ run?: string }> } } };
  return doc.jobs.kind.steps
    .map((s) => /scripts\/credprov (.+)$/.exec(s.run ?? '')?.[1])
    .filter((c): c is string => c !== undefined)
    .map((c) => c.split(/\s+/).map((a) => (a === 'ci' ? NAME : a)));
}

const reports = await mkdtemp(join(tmpdir(), 'credprov-kind-e2e-'));
const commands = await workflowCommands();
const [up, run, down] = commands;

afterAll(async () => {
  await table.down();
  await kindProvider().down(NAME);
  await rm(reports, { recursive: true, force: true });
}, 300_000);

const KIND_LEG_TIMEOUT_MS = 2_400_000;

/** The table's kind leg: every suite kind can run, on the cluster `up` made (keep: `down` below takes it away). */
const KIND_ROWS = SUITE_TABLE.filter((row) => row.kind);
const table = suitesRun(
  KIND_ROWS.map((row) => row.suite),
  {
    provider: 'kind',
    envName: NAME,
    spec: { kindCluster: { workers: 1 } },
    keep: true,
    redactor: new RecordingRedactor(),
    // The checks of a capability kind lacks are skipped with that reason (under CI=true they would fail).
    processEnv: { ...process.env, CI: '' },
  },
  it,
);

describe('kind tier: the GitHub Actions recipe, with the e2e table between up and run', () => {
  it('the workflow runs up, run and down, in that order', () => {
    expect(commands.map((c) => c[0])).toEqual(['up', 'run', 'down']);
  });

  it('up: an offline node image and a cluster of a control plane and one worker', async () => {
    const r = await runCli(up!);
    expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr.slice(-3000) }).toEqual({ code: 0, stderr: '' });
    const env = JSON.parse(r.stdout.trim().split('\n').pop()!) as { provider: string; nodeName: string };
    expect(env).toMatchObject({ provider: 'kind', nodeName: `credprov-${NAME}-control-plane` });
    expect(r.stderr).toMatch(/kind create cluster credprov-\S+ \(2 nodes\)/);
  }, 1_800_000);

  // The first of these tests waits for the whole leg: every suite runs in the one run.
  for (const row of KIND_ROWS) rowTests(row, table, KIND_LEG_TIMEOUT_MS);

  it('run: the smoke suite passes on kind with the predictions it makes on the local provider', async () => {
    const argv = run!.map((a) => (a === 'reports/kind' ? join(reports, 'smoke') : a));
    const r = await runCli(argv);
    expect({ code: r.code, out: r.code === 0 ? '' : r.stderr.slice(-3000) }).toEqual({ code: 0, out: '' });
    const report = JSON.parse(await readFile(join(reports, 'smoke', 'report.json'), 'utf8')) as {
      checks: Array<{ id: string; status: string; comparison?: { agree: boolean } }>;
    };
    expect(report.checks.map((c) => [c.id, c.status, c.comparison?.agree])).toEqual(
      report.checks.map((c) => [c.id, 'passed', true]),
    );
  }, 600_000);

  it('down: no node container, kind network, image build dir or exchange dir is left', async () => {
    const r = await runCli(down!);
    expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
    const engine = await resolveEngine();
    if (engine) {
      const env = { ...process.env, DOCKER_HOST: engine.host };
      const containers = await execa(
        'docker',
        ['ps', '-aq', '--filter', `label=io.x-k8s.kind.cluster=credprov-${NAME}`],
        { env },
      );
      expect(containers.stdout.trim()).toBe('');
    } else expect(existsSync(OWN_ENGINE_RUN_DIR)).toBe(false);
    const kindCache = join(cacheDir(), 'kind');
    expect((await readdir(kindCache).catch(() => [] as string[])).filter((f) => f.startsWith('build-'))).toEqual([]);
    expect(existsSync(join(exchangeDir(), NAME))).toBe(false);
  }, 300_000);
});
