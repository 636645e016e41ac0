// explain, match and validate-config as a user meets them: stdout, stderr, exit codes.
import { describe, expect, test } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { stderrLogger } from '../core/logger.ts';
import { runCli, type CliResult } from '../testing/cli.ts';
import { parseFeatureGates } from './validate-config.ts';

const CONFIGS = fileURLToPath(new URL('../../fixtures/configs/', import.meta.url));
const cfg = (name: string) => join(CONFIGS, name);

// The info-level logger even under --verbose: these tests pin what a user sees without debug lines.
function credprov(...args: string[]): Promise<CliResult> {
  return runCli(args, { log: stderrLogger('info', 'credprov') });
}

describe('credprov validate-config', () => {
  test('says ok and exits 0 for a config the kubelet accepts', async () => {
    const r = await credprov('validate-config', cfg('valid-minimal.yaml'));
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(
      `ok: ${cfg('valid-minimal.yaml')} is a valid CredentialProviderConfig for kubelet v1.37 (1 provider: fake-plugin)\n`,
    );
  });

  test('prints one field: message line per problem and exits 1', async () => {
    const r = await credprov('validate-config', cfg('invalid-typo-matchimages.yaml'));
    expect(r.code).toBe(1);
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      'providers[0].matchimages: unknown field (line 6); did you mean "matchImages"?',
      'providers[0].matchImages: Required value: at least 1 item in matchImages is required',
    ]);
    expect(r.stderr).toMatch(
      /^error: .*invalid-typo-matchimages\.yaml: kubelet v1\.37 would refuse this CredentialProviderConfig \(2 problems\)\n/,
    );
  });

  test('bad YAML is one line with the file and line, exit 1, no stack', async () => {
    const r = await credprov('validate-config', cfg('invalid-yaml-syntax.yaml'));
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(/^error: .*invalid-yaml-syntax\.yaml:5:1: not valid YAML: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('a text file that is no YAML mapping is one line too', async () => {
    const r = await credprov('validate-config', cfg('invalid-not-yaml.txt'));
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toMatch(/invalid-not-yaml\.txt:1: not a CredentialProviderConfig/);
  });

  test('--kube-version changes the rules', async () => {
    expect(
      (await credprov('validate-config', cfg('invalid-token-attributes-no-cachetype.yaml'), '--kube-version', '1.34'))
        .code,
    ).toBe(1);
    const r = await credprov(
      'validate-config',
      cfg('valid-service-account-1.33.yaml'),
      '--kube-version',
      'v1.33.4',
      '--feature-gates',
      'KubeletServiceAccountTokenForCredentialProviders=true',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/for kubelet v1\.33\.4/);
  });

  test('warns on stderr about entries that can never match, and still exits 0', async () => {
    const r = await credprov('validate-config', cfg('valid-never-matches.yaml'));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^warn: providers\[0\]\.matchImages\[1\]: "reg\.io\/\*" never matches an image: globs work only in host labels/m,
    );
  });

  test('--feature-gates can switch the service-account gate off', async () => {
    const r = await credprov(
      'validate-config',
      cfg('valid-service-account.yaml'),
      '--feature-gates',
      'KubeletServiceAccountTokenForCredentialProviders=false',
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^providers\[0\]\.tokenAttributes: Forbidden: tokenAttributes is not supported when KubeletServiceAccountTokenForCredentialProviders feature gate is disabled/,
    );
  });

  test('a directory is merged from 1.34 and refused before', async () => {
    expect((await credprov('validate-config', cfg('dir-valid'))).stdout).toMatch(
      /\(2 providers: fake-plugin, hub-plugin\)/,
    );
    expect((await credprov('validate-config', cfg('dir-valid'), '--kube-version', '1.33')).code).toBe(1);
  });

  test('--json prints the verdict as one object', async () => {
    const r = await credprov('validate-config', cfg('invalid-negative-duration.yaml'), '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      valid: false,
      kubeVersion: 'v1.37',
      problems: [{ field: 'providers[0].defaultCacheDuration' }],
    });
  });

  test('usage errors exit 2: bad --feature-gates, missing file argument, unknown version', async () => {
    expect((await credprov('validate-config', cfg('valid-minimal.yaml'), '--feature-gates', 'Foo')).code).toBe(2);
    expect((await credprov('validate-config')).code).toBe(2);
    expect((await credprov('validate-config', cfg('valid-minimal.yaml'), '--kube-version', '1.20')).code).toBe(2);
  });

  test('a missing file exits 2 (it is not a verdict on the config) and says so', async () => {
    const r = await credprov('validate-config', '/nonexistent/providers.yaml');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: \/nonexistent\/providers\.yaml: no such file or directory/);
  });
});

describe('parseFeatureGates', () => {
  test('reads Name=bool pairs like the kubelet flag', () => {
    expect(parseFeatureGates('x', 'A=true, B=False,C=1')).toEqual({ A: true, B: false, C: true });
    expect(parseFeatureGates('x', undefined)).toEqual({});
    expect(() => parseFeatureGates('x', 'A=yes')).toThrow(/is not Name=true or Name=false/);
  });
});

describe('credprov explain', () => {
  test('lists each provider in order with the reason each pattern fails, exit 0 when one is called', async () => {
    const r = await credprov('explain', '--config', cfg('valid-multi-provider.yaml'), '--image', 'nginx');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('normalised: docker.io/library/nginx');
    expect(r.stdout).toContain('provider zeta-plugin: not called');
    expect(r.stdout).toContain('provider alpha-plugin: called (1st)');
    expect(r.stdout).toMatch(/no {5}\*\.registry\.test +host label count differs: pattern has 3, image has 2/);
    expect(r.stdout).toMatch(/result: the kubelet execs alpha-plugin for docker\.io\/library\/nginx\n$/);
  });

  test('exits 1 and says so when no provider matches', async () => {
    const r = await credprov('explain', '--config', cfg('valid-minimal.yaml'), '--image', 'quay.io/org/app:1');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /result: no provider matches quay\.io\/org\/app; the kubelet pulls it without plugin credentials/,
    );
  });

  test('--json prints the verdict', async () => {
    const r = await credprov(
      'explain',
      '--config',
      cfg('valid-multi-provider.yaml'),
      '--image',
      '127.0.0.1:5000/team/app',
      '--json',
    );
    expect(JSON.parse(r.stdout)).toMatchObject({
      invoked: ['zeta-plugin', 'alpha-plugin'],
      order: 'config',
      image: { repository: '127.0.0.1:5000/team/app' },
    });
  });

  test('an invalid config is refused with its problems and a pointer to validate-config', async () => {
    const r = await credprov('explain', '--config', cfg('invalid-missing-required.yaml'), '--image', 'nginx');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/providers\[0\]\.apiVersion: Required value/);
    expect(r.stderr).toMatch(/hint: .*credprov validate-config/);
  });

  test('an invalid image and missing flags are input errors', async () => {
    expect((await credprov('explain', '--config', cfg('valid-minimal.yaml'), '--image', 'Bad//Image')).code).toBe(2);
    expect((await credprov('explain', '--image', 'nginx')).code).toBe(2);
  });
});

describe('credprov match', () => {
  test.each([
    [['docker.io', 'nginx'], 'true', 0],
    [['index.docker.io', 'nginx'], 'false', 1],
    [['127.0.0.1', '127.0.0.1:5000/pause'], 'false', 1],
    [['*.reg.io', 'a.reg.io/x'], 'true', 0],
    [['reg.io/*', 'reg.io/x'], 'false', 1],
  ])('%j prints %s', async (args, out, code) => {
    const r = await credprov('match', ...args);
    expect(r).toMatchObject({ code, stdout: `${out}\n` });
  });

  test('--raw compares the strings as written', async () => {
    expect((await credprov('match', 'docker.io', 'nginx', '--raw')).stdout).toBe('false\n');
    expect((await credprov('match', 'docker.io', 'docker.io/library/nginx', '--raw')).stdout).toBe('true\n');
  });

  test('--verbose adds the reason on stderr', async () => {
    const r = await credprov('match', '--verbose', '127.0.0.1', '127.0.0.1:5000/pause');
    expect(r.stdout).toBe('false\n');
    expect(r.stderr).toMatch(/port differs: pattern has none, image has 5000/);
    expect(r.stderr).toMatch(/hint: add the port to the pattern: 127\.0\.0\.1:5000/);
  });

  test('an invalid image or a missing argument exits 2', async () => {
    expect((await credprov('match', 'docker.io', 'NGINX')).code).toBe(2);
    expect((await credprov('match', 'docker.io')).code).toBe(2);
  });
});
