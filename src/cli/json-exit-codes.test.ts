// Every command under --json, as a script meets it: stdout is exactly one JSON
// document (the result, or {"error",...,"exitCode"} when there is none), and
// the exit code is the one docs/exit-codes-and-json.md's tables give
// for that outcome (EXIT_CODES in main.ts).
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { noopLogger } from '../core/logger.ts';
import { runCli, type CliResult } from '../testing/cli.ts';
import { useTempDir } from '../testing/tmp.ts';
import { COMMANDS } from './commands.ts';
import { EXIT_CODES } from './main.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIGS = join(ROOT, 'fixtures/configs');
const PLUGINS = join(ROOT, 'fixtures/plugins');
const EXEC_PLUGIN = join(ROOT, 'fixtures/fake-exec-plugin/fake-exec-plugin');
const dir = useTempDir('credprov-cli-json-');

/** The commands a case below ran, to prove every command in the table was covered. */
const covered = new Set<string>();

async function json(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult & { doc: Record<string, unknown> }> {
  const r = await runCli([...argv, '--json'], {
    log: noopLogger,
    cwd: dir(),
    env: { ...process.env, CREDPROV_NODE: process.execPath, ...env },
  });
  const command = COMMANDS.find((c) => c.path.every((w, i) => argv[i] === w));
  if (command) covered.add(command.path.join(' '));
  // Exactly one document: one line, and it parses.
  expect(r.stdout.endsWith('\n') && !r.stdout.slice(0, -1).includes('\n')).toBe(true);
  return { ...r, doc: JSON.parse(r.stdout) as Record<string, unknown> };
}

/** An error document says what stderr's error line says, and carries the exit code. */
function expectError(r: CliResult & { doc: Record<string, unknown> }, code: number): void {
  expect(r.code).toBe(code);
  expect(r.doc.exitCode).toBe(code);
  expect(r.stderr.split('\n')).toContain(`error: ${String(r.doc.error)}`);
}

describe('global flags under --json', () => {
  test('--version prints the name, version (package.json) and Node', async () => {
    const r = await json(['--version']);
    expect(r.code).toBe(EXIT_CODES.ok);
    expect(r.doc).toEqual({
      name: 'credprov',
      version: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
      node: process.version,
    });
  });

  test('--help lists every command; <command> --help gives its usage', async () => {
    const all = await json(['--help']);
    expect(all.code).toBe(EXIT_CODES.ok);
    expect((all.doc.commands as Array<{ command: string }>).map((c) => c.command)).toEqual(
      COMMANDS.map((c) => c.path.join(' ')),
    );
    const one = await json(['match', '--help']);
    expect(one.code).toBe(EXIT_CODES.ok);
    expect(one.doc).toMatchObject({ command: 'match', usage: expect.stringContaining('Usage: credprov match') });
  });

  test('no command, an unknown one, or a group without its subcommand is a usage error', async () => {
    expectError(await json([]), EXIT_CODES.usage);
    expectError(await json(['certfy']), EXIT_CODES.usage);
    expect((await json(['certfy'])).doc.error).toBe("unknown command 'certfy' (did you mean 'certify'?)");
    expectError(await json(['registry']), EXIT_CODES.usage);
  });
});

describe('each command under --json', () => {
  test('certify kubelet-plugin: where the report is and what it says; 0 for a good plugin, 1 for a broken one, 2 without --plugin', async () => {
    const good = await json([
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(PLUGINS, 'well-behaved'),
      '--config',
      join(PLUGINS, 'configs/v1.yaml'),
      '--report-dir',
      join(dir(), 'kp-good'),
    ]);
    expect(good.code).toBe(EXIT_CODES.ok);
    const report = JSON.parse(readFileSync(join(dir(), 'kp-good', 'report.json'), 'utf8'));
    expect(good.doc).toEqual({
      reportDir: join(dir(), 'kp-good'),
      report: join(dir(), 'kp-good', 'report.json'),
      summary: report.summary,
      failed: [],
      exitCode: 0,
    });
    const broken = await json([
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(PLUGINS, 'broken-wrong-kind'),
      '--config',
      join(PLUGINS, 'configs/v1.yaml'),
      '--report-dir',
      join(dir(), 'kp-broken'),
    ]);
    expect(broken.code).toBe(EXIT_CODES.failed);
    const failedIds = JSON.parse(readFileSync(join(dir(), 'kp-broken', 'report.json'), 'utf8'))
      .checks.filter((c: { status: string }) => c.status === 'failed')
      .map((c: { id: string }) => c.id);
    expect(broken.doc).toMatchObject({ failed: failedIds, exitCode: EXIT_CODES.failed });
    expect(failedIds.length).toBeGreaterThan(0);
    expectError(await json(['certify', 'kubelet-plugin']), EXIT_CODES.usage);
  }, 90_000);

  test('certify exec-plugin: 0 for the good fake, 2 without a plugin', async () => {
    const good = await json([
      'certify',
      'exec-plugin',
      '--command',
      EXEC_PLUGIN,
      '--api-version',
      'client.authentication.k8s.io/v1',
      '--report-dir',
      join(dir(), 'ep-good'),
    ]);
    expect(good.code).toBe(EXIT_CODES.ok);
    expect(good.doc).toMatchObject({ report: join(dir(), 'ep-good', 'report.json'), failed: [], exitCode: 0 });
    expectError(await json(['certify', 'exec-plugin']), EXIT_CODES.usage);
  }, 90_000);

  test('explain: 0 when a provider matches, 1 when none does, 2 for a missing config', async () => {
    const yes = await json([
      'explain',
      '--config',
      join(CONFIGS, 'valid-multi-provider.yaml'),
      '--image',
      '127.0.0.1:5000/team/app',
    ]);
    expect(yes.code).toBe(EXIT_CODES.ok);
    expect(yes.doc.invoked).toEqual(expect.arrayContaining([expect.any(String)]));
    const no = await json(['explain', '--config', join(CONFIGS, 'valid-minimal.yaml'), '--image', 'quay.io/org/app:1']);
    expect(no.code).toBe(EXIT_CODES.failed);
    expect(no.doc.invoked).toEqual([]);
    expectError(await json(['explain', '--config', join(dir(), 'missing.yaml'), '--image', 'nginx']), EXIT_CODES.usage);
  });

  test('match: 0 true, 1 false, 2 for a reference that is no image', async () => {
    expect(await json(['match', 'docker.io', 'nginx'])).toMatchObject({ code: EXIT_CODES.ok, doc: { match: true } });
    expect(await json(['match', 'quay.io', 'nginx'])).toMatchObject({ code: EXIT_CODES.failed, doc: { match: false } });
    expectError(await json(['match', 'docker.io', 'UPPER/Case:tag']), EXIT_CODES.usage);
  });

  test('validate-config: 0 valid, 1 invalid (the problems), 2 unreadable', async () => {
    expect(await json(['validate-config', join(CONFIGS, 'valid-minimal.yaml')])).toMatchObject({
      code: EXIT_CODES.ok,
      doc: { valid: true },
    });
    const bad = await json(['validate-config', join(CONFIGS, 'invalid-negative-duration.yaml')]);
    expect(bad).toMatchObject({
      code: EXIT_CODES.failed,
      doc: {
        valid: false,
        exitCode: EXIT_CODES.failed,
        problems: [expect.objectContaining({ field: 'providers[0].defaultCacheDuration' })],
      },
    });
    expectError(await json(['validate-config', join(dir(), 'missing.yaml')]), EXIT_CODES.usage);
  });

  test('registry up / down / ls: usage errors as JSON; ls of an empty state dir is []', async () => {
    expectError(await json(['registry', 'up', '--auth', 'bogus']), EXIT_CODES.usage);
    expectError(await json(['registry', 'down', '--name', 'x', '--all']), EXIT_CODES.usage);
    expect(await json(['registry', 'ls'], { CREDPROV_STATE_DIR: join(dir(), 'state') })).toMatchObject({
      code: EXIT_CODES.ok,
      doc: [],
    });
  });

  test('up / down / run / qualify: bad input is refused before anything starts', async () => {
    const up = await json(['up', '--provider', 'bogus']);
    expectError(up, EXIT_CODES.usage);
    expect(up.doc.problems).toEqual([{ field: 'provider', message: expect.stringContaining("'bogus' is not one of") }]);
    expectError(await json(['down', '--bogus']), EXIT_CODES.usage);
    expectError(await json(['run', '--suite', 'nope']), EXIT_CODES.usage);
    expectError(await json(['qualify']), EXIT_CODES.usage);
    expectError(await json(['qualify', '--kube-versions', '1.37', '--report-dir', '/proc/credprov']), EXIT_CODES.usage);
    expectError(await json(['qualify', '--kube-versions', '1.37', '--shard', '3/2']), EXIT_CODES.usage);
  });

  test('report merge: 2 without dirs or for a dir no shard wrote', async () => {
    expectError(await json(['report', 'merge']), EXIT_CODES.usage);
    const r = await json(['report', 'merge', dir(), '--report-dir', join(dir(), 'merged')]);
    expectError(r, EXIT_CODES.usage);
    expect(r.doc.error).toBe(
      `report merge: ${dir()}: no shard.json (not the report dir of a 'qualify --shard I/N' run)`,
    );
  });

  test('qualify --plan says what it would build', async () => {
    const r = await json(['qualify', '--plan', '--kube-versions', '1.37']);
    expect(r.code).toBe(EXIT_CODES.ok);
    expect(r.doc).toMatchObject({
      plan: [expect.objectContaining({ requested: '1.37', buildMinutes: expect.any(Number) })],
      notes: expect.any(Array),
    });
  });

  test("qualify --plan --shard names that shard's cells and plans only its versions", async () => {
    const r = await json(['qualify', '--plan', '--kube-versions', '1.36,1.37', '--suite', 'smoke', '--shard', '2/2']);
    expect(r.code).toBe(EXIT_CODES.ok);
    expect(r.doc).toMatchObject({
      plan: [expect.objectContaining({ requested: '1.37' })],
      shard: { index: 2, count: 2 },
      cells: [{ version: '1.37', suite: 'smoke' }],
    });
    expect((r.doc.plan as unknown[]).length).toBe(1);
  });

  test('kind image build: 2 for a version that is not an exact release, before any engine or build starts', async () => {
    expectError(await json(['kind', 'image', 'build', '--kube-version', '1.37']), EXIT_CODES.usage);
  });

  test('binaries ensure / ls: 2 for a bad --source, 3 when no source can deliver, [] for an empty cache', async () => {
    expectError(await json(['binaries', 'ensure', '--source', 'bogus']), EXIT_CODES.usage);
    const cache = join(dir(), 'cache');
    // The binaries code reads the cache location from the process environment.
    const saved = process.env.CREDPROV_CACHE_DIR;
    process.env.CREDPROV_CACHE_DIR = cache;
    try {
      const r = await json(
        [
          'binaries',
          'ensure',
          '--kube-version',
          '1.37.1',
          '--only',
          'kubelet',
          '--skip-containerd',
          '--source',
          'download',
          '--download-base-url',
          'http://127.0.0.1:1',
        ],
        { CREDPROV_CACHE_DIR: cache },
      );
      expectError(r, EXIT_CODES.harness);
    } finally {
      if (saved === undefined) delete process.env.CREDPROV_CACHE_DIR;
      else process.env.CREDPROV_CACHE_DIR = saved;
    }
    expect(await json(['binaries', 'ls'], { CREDPROV_CACHE_DIR: cache })).toMatchObject({
      code: EXIT_CODES.ok,
      doc: { kube: [], containerd: [] },
    });
  }, 30_000);

  test('clients ls / ensure: the clients and their versions or why not (1 when one is missing), 2 for a --kube-version that is not exact', async () => {
    const ls = await json(['clients', 'ls'], { CREDPROV_CACHE_DIR: join(dir(), 'no-clients') });
    expect(ls.code).toBe(EXIT_CODES.failed);
    expect((ls.doc.clients as Array<{ name: string }>).map((c) => c.name)).toEqual([
      'kubectl',
      'client-go',
      'client-node',
      'python',
    ]);
    expectError(await json(['clients', 'ensure', '--kube-version', '1.37']), EXIT_CODES.usage);
  });

  test('doctor: a bad flag is a usage error', async () => {
    expectError(await json(['doctor', '--bogus']), EXIT_CODES.usage);
  });
});

// Last in the file (jest runs a file's tests in order): a command added to the table without a case above fails here.
test('every command of the table was run under --json above', () => {
  expect([...covered].sort()).toEqual(COMMANDS.map((c) => c.path.join(' ')).sort());
});

test('docs/exit-codes-and-json.md documents the exit code and --json output of every command', () => {
  const section = readFileSync(join(ROOT, 'docs', 'exit-codes-and-json.md'), 'utf8');
  expect(section.length).toBeGreaterThan(100);
  for (const c of COMMANDS) expect(section).toContain(`| \`${c.path.join(' ')}\``);
  for (const code of Object.values(EXIT_CODES)) expect(section).toContain(`| ${code} |`);
});
