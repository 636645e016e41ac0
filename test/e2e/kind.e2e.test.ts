// The kind tier: the credprov commands of examples/github-actions/kind.yml,
// flags included, run here in order (an offline node image, a cluster of a
// control plane and one worker, the smoke suite, down), plus the check only
// two nodes can make (SA-TOKEN-OTHER-NODE) between `run` and `down`. After
// down nothing of the cluster is left: no node container, no kind network,
// no image build dir, no fake's exchange dir, and credprov's own engine
// stopped when it started one.
import { afterAll, describe, expect } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { kindProvider } from '../../src/cluster/kind/index.ts';
import { OWN_ENGINE_RUN_DIR, resolveEngine } from '../../src/cluster/kind/engine.ts';
import { cacheDir, exchangeDir } from '../../src/core/paths.ts';
import { Redactor } from '../../src/core/redact.ts';
import { runSuites } from '../../src/run/runner.ts';
import { runCli } from '../../src/testing/cli.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { TOKEN_OTHER_NODE } from '../../suites/service-account-token/checks.ts';
import { serviceAccountTokenSuite } from '../../suites/service-account-token/index.ts';
import { execa } from 'execa';

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
  await kindProvider().down(NAME);
  await rm(reports, { recursive: true, force: true });
});

describe('kind tier: the GitHub Actions recipe, then the two-node check', () => {
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

  it(`${TOKEN_OTHER_NODE.id}: node B's kubelet is refused a token for node A's pod, node A's gets one`, async () => {
    const outcome = await runSuites([serviceAccountTokenSuite], {
      baseSpec: { name: NAME, provider: 'kind', kindCluster: { workers: 1 } },
      artifactsDir: join(reports, 'sa'),
      redactor: new Redactor(),
      keep: true,
      // Checks that need the kubelet's files on this host are skipped on kind; under CI=true they would fail.
      processEnv: { ...process.env, CI: '' },
    });
    const checks = outcome.report.checks;
    const other = checks.find((c) => c.id === TOKEN_OTHER_NODE.id)!;
    expect(`${other.status}: ${other.message}`).toMatch(/^passed: /);
    expect(other.comparison?.agree).toBe(true);
    for (const c of checks.filter((x) => x.status !== 'passed'))
      expect(`${c.id} ${c.status}: ${c.message}`).toMatch(
        / skipped: .*needs what provider kind cannot do|cannot put a manifest/,
      );
  }, 900_000);

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
