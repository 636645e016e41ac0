// Canary test for redaction: every fixture plugin (the kubelet catalogue and
// the exec catalogue, good and broken) is certified through the real CLI with
// its secrets set to a unique canary string; then every file the run wrote,
// and everything it printed, is searched for the canary. None may hold it,
// nor a JWT, nor a private key, whatever form the plugin printed them in
// (JSON, YAML, an array for a password, on stderr …).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killMarked, newMarker, TEST_MARKER_ENV } from '../testing/processes.ts';
import { useTempDir } from '../testing/tmp.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = useTempDir('credprov-canary-');
const CANARY = `canary${randomBytes(8).toString('hex')}`;
const marker = newMarker();

interface Run {
  name: string;
  args: string[];
}
interface Ran {
  code: number | null;
  files: Record<string, string>;
  output: string;
}

const kubelet = JSON.parse(await readFile(join(ROOT, 'fixtures/plugins/catalogue.json'), 'utf8')) as {
  plugins: Array<{ name: string; config: string; timeout?: string }>;
};
const exec = JSON.parse(await readFile(join(ROOT, 'fixtures/exec-plugins/catalogue.json'), 'utf8')) as {
  plugins: Array<{ name: string; apiVersion: string; timeout?: string }>;
};

/** Every certification to make; `base` is where the canary copy of the kubelet catalogue is. */
function runs(base: string): Run[] {
  const plugins = join(base, 'plugins');
  const fake = join(ROOT, 'fixtures/fake-exec-plugin/fake-exec-plugin');
  const execRun = (name: string, command: string, apiVersion: string, extra: string[] = []): Run => ({
    name: `exec ${name}`,
    args: [
      'certify',
      'exec-plugin',
      '--command',
      command,
      '--api-version',
      apiVersion,
      '--interactive-mode',
      'Never',
      ...extra,
    ],
  });
  return [
    ...kubelet.plugins.map((p) => ({
      name: `kubelet ${p.name}`,
      args: [
        'certify',
        'kubelet-plugin',
        '--plugin',
        join(plugins, p.name),
        '--config',
        join(plugins, p.config),
        ...(p.timeout ? ['--timeout', p.timeout] : []),
      ],
    })),
    execRun('fake-exec-plugin', fake, 'client.authentication.k8s.io/v1'),
    execRun('fake-exec-plugin (token and certificate)', fake, 'client.authentication.k8s.io/v1beta1', [
      '--arg=--scenario',
      '--arg={"credential":"both"}',
    ]),
    ...exec.plugins.map((p) =>
      execRun(
        p.name,
        join(ROOT, 'fixtures/exec-plugins', p.name),
        p.apiVersion,
        p.timeout ? ['--timeout', p.timeout] : [],
      ),
    ),
  ];
}

async function certify(run: Run, i: number): Promise<Ran> {
  const reportDir = join(dir(), 'reports', String(i));
  const child = spawn(process.execPath, [join(ROOT, 'bin/credprov.js'), ...run.args, '--report-dir', reportDir], {
    cwd: dir(),
    env: {
      ...process.env,
      CREDPROV_NODE: process.execPath,
      FAKE_EXEC_TOKEN: `${CANARY}-token`,
      [TEST_MARKER_ENV]: marker,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  const files: Record<string, string> = {};
  const entries = await readdir(reportDir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const f of entries) {
    if (f.isFile())
      files[join(f.parentPath, f.name).slice(reportDir.length + 1)] = await readFile(
        join(f.parentPath, f.name),
        'utf8',
      );
  }
  return { code, files, output };
}

/** A few at a time: each certification starts a dozen plugin processes and the machine is shared. */
async function pool<T, R>(items: T[], width: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

const results = new Map<string, Ran>();

beforeAll(async () => {
  // The kubelet catalogue, its passwords swapped for the canary; the fake itself is shared.
  const plugins = join(dir(), 'plugins');
  await cp(join(ROOT, 'fixtures/plugins'), plugins, { recursive: true });
  await symlink(join(ROOT, 'fixtures/fake-credential-provider'), join(dir(), 'fake-credential-provider'));
  for (const f of await readdir(join(plugins, 'scenarios'))) {
    const file = join(plugins, 'scenarios', f);
    const text = await readFile(file, 'utf8');
    await writeFile(
      file,
      text
        .replaceAll('fake-password-for-', `${CANARY}-password-for-`)
        .replaceAll('exchanged-for-', `${CANARY}-exchanged-for-`),
    );
  }
  const all = runs(dir());
  // The longest first (exec plugins run through every client; timeouts), so none is left to run alone at the end.
  const weight = (r: Run) => (r.name.startsWith('exec ') ? 2 : 0) + (r.args.includes('--timeout') ? 1 : 0);
  const order = all.map((_, i) => i).sort((a, b) => weight(all[b]!) - weight(all[a]!));
  const ranInOrder = await pool(
    order.map((i) => all[i]!),
    3,
    (r) => certify(r, all.indexOf(r)),
  );
  const ran: Ran[] = new Array(all.length);
  order.forEach((i, k) => (ran[i] = ranInOrder[k]!));
  all.forEach((r, i) => results.set(r.name, ran[i]!));
  // Each exec certification also runs the plugin through every available client (certify exec-plugin's default):
  // 320 s on a 2-core machine shared with other test runs.
}, 900_000);

afterAll(() => killMarked(marker));

describe('no secret reaches any artefact of any certification', () => {
  test("the canary is in the plugins' answers, so its absence below means something", async () => {
    const scenarios = await readdir(join(dir(), 'plugins', 'scenarios'));
    const withCanary = [];
    for (const f of scenarios)
      if ((await readFile(join(dir(), 'plugins', 'scenarios', f), 'utf8')).includes(CANARY)) withCanary.push(f);
    expect(withCanary.length).toBeGreaterThanOrEqual(20);
    expect(results.size).toBe(kubelet.plugins.length + exec.plugins.length + 2);
  });

  test.each(runs('').map((r) => [r.name]))('%s', (name) => {
    const r = results.get(name)!;
    expect({ code: r.code, output: r.code === 0 || r.code === 1 ? '' : r.output }).toEqual({
      code: r.code === 0 ? 0 : 1,
      output: '',
    });
    expect(Object.keys(r.files).sort()).toEqual([
      'invocations.jsonl',
      'junit.xml',
      'report.html',
      'report.json',
      'report.md',
    ]);
    const leaks: string[] = [];
    for (const [file, text] of [...Object.entries(r.files), ['(stdout and stderr)', r.output] as [string, string]]) {
      if (text.includes(CANARY))
        leaks.push(
          `${file}: canary at …${text.slice(Math.max(0, text.indexOf(CANARY) - 60), text.indexOf(CANARY) + 40)}…`,
        );
      if (/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/.test(text)) leaks.push(`${file}: a JWT`);
      if (/PRIVATE KEY-----[^-]/.test(text)) leaks.push(`${file}: a private key`);
    }
    expect(leaks).toEqual([]);
  });
});
