// The command as a user meets it: exit codes, one-line errors, reports on disk.
import { describe, expect, test } from '@jest/globals';
import { chmod, copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { noopLogger } from '../core/logger.ts';
import { runCli, type CliResult } from '../testing/cli.ts';
import { useTempDir } from '../testing/tmp.ts';

const PLUGINS = fileURLToPath(new URL('../../fixtures/plugins/', import.meta.url));
const dir = useTempDir('credprov-cli-kp-');

function credprov(...args: string[]): Promise<CliResult> {
  return runCli(args, { log: noopLogger, cwd: dir() });
}

describe('credprov certify kubelet-plugin', () => {
  test('exits 0 for a well-behaved plugin and writes report.json, junit.xml, report.md', async () => {
    const reportDir = join(dir(), 'good');
    const r = await credprov(
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(PLUGINS, 'well-behaved'),
      '--config',
      join(PLUGINS, 'configs/v1.yaml'),
      '--report-dir',
      reportDir,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${join(reportDir, 'report.json')}\n`);
    const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8'));
    expect(report.summary.failed).toBe(0);
    expect(report.checks.map((c: { id: string }) => c.id)).toContain('KP-APIVERSION');
    expect(report.metrics.latencyMs.p95Ms).toEqual(expect.any(Number));
    // The file is not named as the provider: the kubelet would look for <bin-dir>/credprov-probe.
    expect(report.subject.warnings).toEqual([
      expect.stringContaining(
        'is named "well-behaved", but provider "credprov-probe" makes the kubelet run <image-credential-provider-bin-dir>/credprov-probe',
      ),
    ]);
    await readFile(join(reportDir, 'junit.xml'), 'utf8');
    const invocations = await readFile(join(reportDir, 'invocations.jsonl'), 'utf8');
    expect(invocations).not.toContain('fake-password-for');
  }, 60_000);

  test('passes a well-behaved plugin with a --timeout longer than a Node timer can hold (597h)', async () => {
    const r = await credprov(
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(PLUGINS, 'well-behaved'),
      '--config',
      join(PLUGINS, 'configs/v1.yaml'),
      '--timeout',
      '597h',
      '--report-dir',
      join(dir(), 'long-timeout'),
    );
    expect(r.stderr).not.toContain('TimeoutOverflowWarning');
    expect(r.stderr).toMatch(/PASS MUST +KP-TIMEOUT/);
    expect(r.code).toBe(0);
  }, 60_000);

  test('exits 1 when a MUST check fails, and keeps the token and passwords out of the report', async () => {
    const reportDir = join(dir(), 'echo');
    const r = await credprov(
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(PLUGINS, 'broken-returns-sa-token-as-password'),
      '--config',
      join(PLUGINS, 'configs/service-account.yaml'),
      '--report-dir',
      reportDir,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/FAIL MUST +KP-SA-TOKEN-NOT-ECHOED: for image .* is the service account token/);
    const text = await readFile(join(reportDir, 'report.json'), 'utf8');
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./);
    expect(JSON.parse(text).subject.serviceAccountTokenClaims.aud).toEqual(['credprov-test-audience']);
  }, 60_000);

  test('sends the annotation values given on the command line and refuses keys the provider does not list', async () => {
    const reportDir = join(dir(), 'annotations');
    const args = [
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(PLUGINS, 'well-behaved-service-account'),
      '--config',
      join(PLUGINS, 'configs/service-account.yaml'),
      '--report-dir',
      reportDir,
    ];
    const ok = await credprov(...args, '--service-account-annotation', 'credprov.test/identity=team-a');
    expect(ok.code).toBe(0);
    expect(
      JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')).subject.serviceAccountAnnotations,
    ).toEqual({
      'credprov.test/identity': 'team-a',
      'credprov.test/role': 'credprov-probe-value-for-credprov.test-role',
    });
    const bad = await credprov(...args, '--service-account-annotation', 'other.io/x=1');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('does not list this key (credprov.test/identity, credprov.test/role)');
  }, 60_000);

  test('exits 2 with one line for a missing plugin', async () => {
    const r = await credprov(
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(dir(), 'nope'),
      '--config',
      join(PLUGINS, 'configs/v1.yaml'),
    );
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`error: --plugin ${join(dir(), 'nope')}: no such file`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('exits 2 for a plugin that is not executable, with the chmod hint', async () => {
    const plugin = join(dir(), 'not-exec');
    await copyFile(join(PLUGINS, 'well-behaved'), plugin);
    await chmod(plugin, 0o644);
    const r = await credprov(
      'certify',
      'kubelet-plugin',
      '--plugin',
      plugin,
      '--config',
      join(PLUGINS, 'configs/v1.yaml'),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('not executable (mode 0644)');
    expect(r.stderr).toContain(`hint: chmod +x ${plugin}`);
  });

  test('exits 2 for a config that is not YAML', async () => {
    const config = join(dir(), 'bad.yaml');
    await writeFile(config, 'providers: [\n  - name: x\n');
    const r = await credprov(
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(PLUGINS, 'well-behaved'),
      '--config',
      config,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*bad\.yaml/);
  });

  test('exits 2 for a typo in a flag, suggesting the right one', async () => {
    const r = await credprov('certify', 'kubelet-plugin', '--plugn', 'x');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown flag --plugn (did you mean --plugin?)');
  });

  test('exits 2 when the config has several providers and none is picked, listing them', async () => {
    const config = join(dir(), 'two.yaml');
    const one = await readFile(join(PLUGINS, 'configs/v1.yaml'), 'utf8');
    await writeFile(
      config,
      one.replace(
        'providers:\n',
        'providers:\n  - name: other\n    matchImages: ["other.example"]\n    defaultCacheDuration: 1m\n    apiVersion: credentialprovider.kubelet.k8s.io/v1\n',
      ),
    );
    const r = await credprov(
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(PLUGINS, 'well-behaved'),
      '--config',
      config,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('has 2 providers (other, credprov-probe); pick one with --provider NAME');
  });

  test('exits 2 for an --image the provider would never be asked about', async () => {
    const r = await credprov(
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(PLUGINS, 'well-behaved'),
      '--config',
      join(PLUGINS, 'configs/v1.yaml'),
      '--image',
      'docker.io/library/nginx',
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('provider credprov-probe does not match it');
  });

  test('prints its help on --help', async () => {
    const r = await credprov('certify', 'kubelet-plugin', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--plugin PATH');
    expect(r.stdout).toContain('*.reg.io → credprov.reg.io/credprov/probe');
  });
});

describe('credprov certify kubelet-plugin --report-dir', () => {
  const args = (reportDir: string) => [
    'certify',
    'kubelet-plugin',
    '--plugin',
    join(PLUGINS, 'well-behaved'),
    '--config',
    join(PLUGINS, 'configs/v1.yaml'),
    '--report-dir',
    reportDir,
  ];

  test.each([
    ['a file', () => join(dir(), 'report-file'), (p: string) => `error: --report-dir ${p}: is a file, not a directory`],
    [
      'a path under a file',
      () => join(dir(), 'report-file', 'sub'),
      (p: string) => `error: --report-dir ${p}: ${join(dir(), 'report-file')} is not a directory`,
    ],
    [
      'a path under /proc',
      () => '/proc/credprov-report',
      (p: string) => `error: --report-dir ${p}: cannot create ${p} (directories cannot be created there)`,
    ],
    [
      'a place nothing can be created (sysfs)',
      () => '/sys/credprov-report',
      (p: string) => `error: --report-dir ${p}: cannot create ${p} (operation not permitted)`,
    ],
  ])(
    'exits 2 at once for %s, naming the flag and the path, before running the plugin',
    async (_, path, line) => {
      await writeFile(join(dir(), 'report-file'), 'not a directory');
      const t0 = Date.now();
      const r = await credprov(...args(path()));
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(line(path()));
      expect(r.stderr).not.toContain('probing');
      expect(Date.now() - t0).toBeLessThan(5000);
    },
    30_000,
  );

  test('exits 2 for an empty --report-dir instead of writing into the working directory', async () => {
    const r = await credprov(...args(''));
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('error: --report-dir "": the path is empty');
    await expect(readFile(join(dir(), 'report.json'))).rejects.toThrow();
  });
});
