// The command as a new user meets it: a real `credprov` process, its exit
// code, its stderr (one-line errors that say what to fix) and its reports.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { EXEC_PLUGIN_CHECKS } from '../certify/exec-plugin/checks.ts';
import { useTempDir } from '../testing/tmp.ts';

const KC = resolve('fixtures/kubeconfigs');
const dir = useTempDir('credprov-cli-exec-');

function credprov(...args: string[]) {
  return execa(process.execPath, [resolve('bin/credprov.js'), 'certify', 'exec-plugin', ...args], {
    reject: false,
    cwd: dir(),
    env: { CREDPROV_NODE: process.execPath },
  });
}

describe('credprov certify exec-plugin: input errors (exit 2, one line, what to fix)', () => {
  test("a v1 stanza without interactiveMode gets kubectl's message and the fix", async () => {
    const r = await credprov('--kubeconfig', join(KC, 'invalid-v1-missing-interactive-mode.yaml'));
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toBe(
      `error: ${join(KC, 'invalid-v1-missing-interactive-mode.yaml')}: interactiveMode must be specified for alice to use exec authentication plugin`,
    );
    expect(r.stderr).toContain('hint: add interactiveMode: Never');
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  test("a command that does not exist shows client-go's help and the installHint", async () => {
    const r = await credprov('--kubeconfig', join(KC, 'invalid-command-not-found.yaml'));
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('error: exec: executable credprov-no-such-plugin not found');
    expect(r.stderr).toContain(
      'It looks like you are trying to use a client-go credential plugin that is not installed.',
    );
    expect(r.stderr).toContain('Install it with: apt-get install credprov-no-such-plugin');
    expect(r.stderr).toContain('hint: install the plugin, or fix exec.command for user "alice"');
  });

  test('a kubeconfig that is not YAML names the file and line', async () => {
    const r = await credprov('--kubeconfig', join(KC, 'invalid-not-yaml.yaml'));
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `error: ${join(KC, 'invalid-not-yaml.yaml')}:7: not valid YAML: a double quote opened on this line is never closed`,
    );
  });

  test('a kubeconfig with two users of the same name is refused as kubectl refuses it, naming the file', async () => {
    const file = join(KC, 'invalid-duplicate-user.yaml');
    const r = await credprov('--kubeconfig', file);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `error: error loading config file "${file}": error converting *[]NamedAuthInfo into *map[string]*api.AuthInfo: duplicate name "alice" in list`,
    );
    expect(r.stderr).not.toContain('an-older-static-token');
  });

  test('an unknown --user lists the users present', async () => {
    const r = await credprov('--kubeconfig', join(KC, 'valid-v1.yaml'), '--user', 'carol');
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `error: ${join(KC, 'valid-v1.yaml')}: user "carol" not found; users present: alice, bob`,
    );
  });

  test.each([
    [['--kubeconfig', 'k.yaml', '--command', 'p'], 'give either --kubeconfig or --command, not both'],
    [[], 'say which plugin to certify'],
    [['--command', 'p'], '--api-version is required with --command'],
    [['--command', 'p', '--api-version', 'client.authentication.k8s.io/v1alpha1'], 'was removed in Kubernetes 1.24'],
    [
      ['--command', 'p', '--api-version', 'client.authentication.k8s.io/v1', '--interactive-mode', 'Sometimes'],
      'invalid --interactive-mode "Sometimes"',
    ],
    [
      ['--command', 'p', '--api-version', 'client.authentication.k8s.io/v1', '--timeout', 'soon'],
      '--timeout "soon" is not a positive duration',
    ],
    [
      ['--command', 'p', '--api-version', 'client.authentication.k8s.io/v1', '--env', 'NOVALUE'],
      '--env "NOVALUE" must be NAME=VALUE',
    ],
    [['--kubeconfig', 'k.yaml', '--arg', 'x'], '--arg applies only with --command'],
    [['--kubeconfg', 'k.yaml'], 'unknown flag --kubeconfg (did you mean --kubeconfig?)'],
  ])('usage %j is refused: %s', async (args, message) => {
    const r = await credprov(...args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toContain(message);
  });
});

describe('credprov certify exec-plugin: a certification run', () => {
  test('a good plugin from a kubeconfig: exit 0, the report.json path on stdout, reports and a redacted invocation log', async () => {
    const out = join(dir(), 'good');
    // The client matrix has its own tests (certify-exec-plugin-clients.test.ts): here, credprov's own runs alone.
    const r = await credprov('--kubeconfig', join(KC, 'valid-v1.yaml'), '--clients', 'none', '--report-dir', out);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(join(out, 'report.json'));
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
    // Every check of credprov's own, each passed: the count follows the check list, not a number typed here.
    expect(report.summary).toEqual({ passed: EXEC_PLUGIN_CHECKS.length, failed: 0, skipped: 0 });
    expect(report.checks.map((c: { id: string }) => c.id)).toEqual(EXEC_PLUGIN_CHECKS.map((c) => c.id));
    expect(report.subject).toMatchObject({
      user: 'alice',
      apiVersion: 'client.authentication.k8s.io/v1',
      envNames: ['PLUGIN_PROFILE'],
    });
    const invocations = await readFile(join(out, 'invocations.jsonl'), 'utf8');
    expect(invocations.trim().split('\n')).toHaveLength(14);
    expect(invocations).not.toMatch(/fake-[0-9a-f]{24}/);
    expect(invocations).not.toContain('BEGIN PRIVATE KEY');
    expect(await readFile(join(out, 'junit.xml'), 'utf8')).toContain('EP-APIVERSION');
  }, 60_000);

  test('a plugin that breaks a MUST exits 1 and says which check, with the reason', async () => {
    const r = await credprov(
      '--command',
      resolve('fixtures/exec-plugins/broken-stdout-noise'),
      '--api-version',
      'client.authentication.k8s.io/v1',
      '--report-dir',
      join(dir(), 'noise'),
    );
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /^FAIL MUST {3}EP-STDOUT-ONLY-JSON: stdout on the first run holds more than the ExecCredential JSON \(before it: "Fetching token for cluster prod\.\.\."\)/m,
    );
  }, 60_000);

  test('--help prints the usage with examples', async () => {
    const r = await credprov('--help');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('--interactive-mode Never|IfAvailable|Always');
  });
});
