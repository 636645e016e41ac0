// The npm package as a user meets it: `npm pack` of a copy of this checkout,
// `npm install <tarball>` into an empty project, then `npx credprov` there.
// The installed package has no TypeScript sources, so every command below
// runs the compiled dist/, its fake plugins included; their verdicts must be
// the ones the checkout's own CLI gives for the same plugin.
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localProvider } from '../../src/cluster/local/index.ts';
import { noopLogger } from '../../src/core/logger.ts';
import { runCli } from '../../src/testing/cli.ts';
import { all, isRoot, testIf, type Prerequisite } from '../../src/testing/prerequisites.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Names of their own, so this file can run beside the other e2e tests.
const ENV_NAME = e2eEnvName('packed-cli');
const REGISTRY_NAME = 'e2e-packed-reg';
// A Node >= 22.18 first on PATH, as a user who can run credprov has; npm runs under it too.
const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`;

function npmWorks(): Prerequisite {
  const r = spawnSync('npm', ['--version'], { env: { ...process.env, PATH }, encoding: 'utf8' });
  return r.status === 0
    ? { ok: true }
    : {
        ok: false,
        reason: `npm does not run (${r.error?.message ?? r.stderr.trim()}); scripts/setup.sh installs Node and npm`,
      };
}

/** A Node older than 22.18 to show the refusal with: $CREDPROV_OLD_NODE, or the machine's /usr/bin/node. */
function oldNode(): Prerequisite & { node?: string; version?: string } {
  const node = process.env.CREDPROV_OLD_NODE ?? '/usr/bin/node';
  const r = spawnSync(node, ['--version'], { encoding: 'utf8' });
  const version = r.stdout?.trim() ?? '';
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  if (r.status !== 0)
    return {
      ok: false,
      reason: `no Node at ${node} to check the old-Node message with (set CREDPROV_OLD_NODE to a Node < 22.18)`,
    };
  if (major > 22 || (major === 22 && minor >= 18))
    return {
      ok: false,
      reason: `${node} is ${version}, not older than 22.18 (set CREDPROV_OLD_NODE to a Node < 22.18)`,
    };
  return { ok: true, node, version };
}

const npm = npmWorks();
const old = oldNode();
const local = await localProvider().isAvailable();
const it = testIf(npm);
const itOldNode = testIf(all(npm, old));
const itAsRoot = testIf(all(npm, isRoot()));
const itOnCluster = testIf(
  all(npm, isRoot(), local.ok ? { ok: true } : { ok: false, reason: `local provider: ${local.reason}` }),
);

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('the packed CLI, installed with npm into an empty project', () => {
  let tmp = '';
  let app = '';
  let packed: { filename: string; files: Array<{ path: string; mode: number }> } | undefined;
  const figures: string[] = [];

  /** `npx credprov …` in the project, as a user runs it. */
  const npx = (args: string[], env: NodeJS.ProcessEnv = {}): Ran => {
    const r = spawnSync('npx', ['credprov', ...args], {
      cwd: app,
      env: { ...process.env, PATH, ...env },
      encoding: 'utf8',
      timeout: 600_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const installed = (...p: string[]) => join(app, 'node_modules', 'credprov', ...p);

  beforeAll(async () => {
    if (!npm.ok) return;
    tmp = await mkdtemp(join(tmpdir(), 'credprov-packed-'));
    // A copy, so the build's dist/ never appears in the checkout while other tests read it.
    const src = join(tmp, 'src');
    const skip = new Set(['node_modules', '.git', 'dist', 'reports'].map((n) => join(ROOT, n)));
    await cp(ROOT, src, { recursive: true, filter: (from) => !skip.has(from.replace(/\/$/, '')) });
    await symlink(await realpath(join(ROOT, 'node_modules')), join(src, 'node_modules'));
    const env = { ...process.env, PATH };
    let t = Date.now();
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], {
      cwd: src,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 600_000,
    });
    figures.push(`npm pack (tsc build included) ${((Date.now() - t) / 1000).toFixed(1)}s`);
    packed = (JSON.parse(out) as Array<NonNullable<typeof packed>>)[0]!;
    app = join(tmp, 'app');
    await mkdir(app);
    await writeFile(join(app, 'package.json'), '{"name":"credprov-install-test","private":true}\n');
    t = Date.now();
    // Offline from npm's cache where it can; the dependencies are fetched only when the cache lacks them.
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(tmp, packed.filename)], {
      cwd: app,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 600_000,
    });
    figures.push(`npm install of the tarball ${((Date.now() - t) / 1000).toFixed(1)}s`);
  }, 1_200_000);

  afterAll(async () => {
    if (figures.length) process.stderr.write(`packed CLI: ${figures.join('; ')}\n`);
    if (app && isRoot().ok) {
      // The commands tear down what they start; this covers a test that failed half way.
      npx(['registry', 'down', '--name', REGISTRY_NAME]);
      await localProvider().down(ENV_NAME);
    }
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }, 120_000);

  it("PACK-CONTENTS: the tarball holds bin/ and the compiled dist/, with the fake plugins' wrappers executable, and no test or TypeScript source", () => {
    const paths = packed!.files.map((f) => f.path);
    expect(paths.filter((p) => !/^(bin|dist)\//.test(p) && !['package.json', 'README.md'].includes(p))).toEqual([]);
    expect(paths.filter((p) => /\.test\.|\.ts$|\/testdata\/|\/testing\//.test(p))).toEqual([]);
    expect(paths).toEqual(
      expect.arrayContaining([
        'bin/credprov.js',
        'dist/src/cli/main.js',
        'dist/registry/token-server-main.js',
        'dist/registry/image/pause/main.go',
        'dist/src/clients/client-go-probe/main.go',
        'dist/src/clients/python-probe/probe.py',
      ]),
    );
    for (const wrapper of [
      'dist/fixtures/fake-credential-provider/credprov-fake-provider',
      'dist/fixtures/fake-exec-plugin/fake-exec-plugin',
    ]) {
      expect((packed!.files.find((f) => f.path === wrapper)?.mode ?? 0) & 0o111).not.toBe(0);
    }
  });

  it('PACK-VERSION-HELP: npx credprov --version and --help answer from the installed package', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(npx(['--version'])).toMatchObject({ code: 0, stdout: `credprov ${pkg.version}\n` });
    const help = npx(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('certify kubelet-plugin');
    expect(JSON.parse(npx(['--version', '--json']).stdout)).toMatchObject({ name: 'credprov', version: pkg.version });
  });

  /** The checkout's verdict for the same command: exit code and each check's status. */
  async function checkoutVerdict(
    args: string[],
    reportDir: string,
  ): Promise<{ code: number; statuses: Record<string, string> }> {
    const r = await runCli([...args, '--report-dir', reportDir], {
      log: noopLogger,
      cwd: tmp,
      env: { ...process.env, PATH },
    });
    return { code: r.code, statuses: await statuses(reportDir) };
  }
  async function statuses(reportDir: string): Promise<Record<string, string>> {
    const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as {
      checks: Array<{ id: string; status: string }>;
    };
    return Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
  }

  it("PACK-CERTIFY-KUBELET-PLUGIN: certify kubelet-plugin on the packaged fake provider gives the checkout's verdict, good and broken", async () => {
    const cases = [
      { name: 'well-behaved', expected: 0 },
      { name: 'broken-wrong-kind', expected: 1 },
    ];
    for (const c of cases) {
      const config = join(tmp, `${c.name}.yaml`);
      await writeFile(
        config,
        [
          'apiVersion: kubelet.config.k8s.io/v1',
          'kind: CredentialProviderConfig',
          'providers:',
          '  - name: credprov-probe',
          '    matchImages: ["*.registry.credprov.test", "registry.credprov.test:5000"]',
          '    defaultCacheDuration: 5m',
          '    apiVersion: credentialprovider.kubelet.k8s.io/v1',
          '    env:',
          '      - name: CREDPROV_FAKE_SCENARIO',
          `        value: ${join(ROOT, 'fixtures/plugins/scenarios', `${c.name}.json`)}`,
          '',
        ].join('\n'),
      );
      const wrapper = 'fixtures/fake-credential-provider/credprov-fake-provider';
      const predicted = await checkoutVerdict(
        ['certify', 'kubelet-plugin', '--plugin', join(ROOT, wrapper), '--config', config],
        join(tmp, `kp-checkout-${c.name}`),
      );
      const reportDir = join(tmp, `kp-packed-${c.name}`);
      const r = npx([
        'certify',
        'kubelet-plugin',
        '--plugin',
        installed('dist', wrapper),
        '--config',
        config,
        '--report-dir',
        reportDir,
        '--json',
      ]);
      expect({ scenario: c.name, code: r.code, statuses: await statuses(reportDir) }).toEqual({
        scenario: c.name,
        code: predicted.code,
        statuses: predicted.statuses,
      });
      // Not two equal wrong answers: the scenario's documented outcome.
      expect(r.code).toBe(c.expected);
      expect(JSON.parse(r.stdout)).toMatchObject({ report: join(reportDir, 'report.json'), exitCode: c.expected });
    }
  }, 180_000);

  it("PACK-CERTIFY-EXEC-PLUGIN: certify exec-plugin on the packaged fake exec plugin gives the checkout's verdict, good and broken", async () => {
    const cases = [
      { name: 'good', scenario: '{}', expected: 0 },
      { name: 'wrong-kind', scenario: '{"kind":"Config"}', expected: 1 },
    ];
    const plugin = 'fixtures/fake-exec-plugin/fake-exec-plugin';
    for (const c of cases) {
      const args = ['--api-version', 'client.authentication.k8s.io/v1', '--env', `FAKE_EXEC_SCENARIO=${c.scenario}`];
      const predicted = await checkoutVerdict(
        ['certify', 'exec-plugin', '--command', join(ROOT, plugin), ...args],
        join(tmp, `ep-checkout-${c.name}`),
      );
      const reportDir = join(tmp, `ep-packed-${c.name}`);
      const r = npx([
        'certify',
        'exec-plugin',
        '--command',
        installed('dist', plugin),
        ...args,
        '--report-dir',
        reportDir,
      ]);
      expect({ scenario: c.name, code: r.code, statuses: await statuses(reportDir) }).toEqual({
        scenario: c.name,
        code: predicted.code,
        statuses: predicted.statuses,
      });
      expect(r.code).toBe(c.expected);
      expect(r.stdout).toBe(`${join(reportDir, 'report.json')}\n`);
    }
  }, 180_000);

  itOldNode(
    'PACK-OLD-NODE: on a Node older than 22.18 the installed bin says which Node it needs and exits 3, without a stack trace',
    () => {
      const oldPath = `${dirname(old.node!)}:/usr/bin:/bin`;
      for (const run of [
        () =>
          spawnSync(join(app, 'node_modules/.bin/credprov'), ['--version'], {
            cwd: app,
            env: { ...process.env, PATH: oldPath },
            encoding: 'utf8',
          }),
        () =>
          spawnSync('npx', ['credprov', 'certify', 'exec-plugin', '--help'], {
            cwd: app,
            env: { ...process.env, PATH: oldPath },
            encoding: 'utf8',
          }),
      ]) {
        const r = run();
        expect({ code: r.status, stdout: r.stdout }).toEqual({ code: 3, stdout: '' });
        expect(r.stderr).toContain(
          `error: credprov needs Node >= 22.18, this is ${old.version}\n  hint: install Node.js 22.18 or newer`,
        );
        expect(r.stderr).not.toMatch(/\n\s+at |ERR_/);
      }
    },
  );

  itAsRoot(
    'PACK-REGISTRY: registry up --auth token --seed runs the packaged token server and pause image source',
    () => {
      const up = npx(['registry', 'up', '--name', REGISTRY_NAME, '--auth', 'token', '--seed', '--json']);
      expect(up.stderr.match(/^error: .*/m)?.[0] ?? '').toBe('');
      expect(up.code).toBe(0);
      const reg = JSON.parse(up.stdout) as { name: string; realm?: string; images?: string[] };
      expect(reg).toMatchObject({
        name: REGISTRY_NAME,
        realm: expect.stringMatching(/^http:\/\/127\./),
        images: [expect.stringContaining('credprov/busybox'), expect.stringContaining('credprov/pause')],
      });
      expect(JSON.parse(npx(['registry', 'down', '--name', REGISTRY_NAME, '--json']).stdout)).toEqual({
        stopped: [REGISTRY_NAME],
      });
    },
    180_000,
  );

  itOnCluster(
    'PACK-RUN-SMOKE: run --suite smoke from the package passes on a real kubelet, through the packaged fake provider',
    async () => {
      const reportDir = join(tmp, 'smoke');
      const r = npx(['run', '--suite', 'smoke', '--name', ENV_NAME, '--report-dir', reportDir, '--json']);
      expect(r.stderr.match(/^(FAIL|error:) .*/gm) ?? []).toEqual([]);
      const doc = JSON.parse(r.stdout) as { failed: string[]; summary: { passed: number }; exitCode: number };
      expect({ code: r.code, failed: doc.failed, exitCode: doc.exitCode }).toEqual({
        code: 0,
        failed: [],
        exitCode: 0,
      });
      const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as {
        summary: unknown;
        checks: unknown[];
      };
      expect(doc.summary).toEqual(report.summary);
      expect(report.checks.length).toBeGreaterThan(0);
    },
    600_000,
  );
});
