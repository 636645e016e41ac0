import { describe, test, expect } from '@jest/globals';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../core/errors.ts';
import { applyDefaults } from './defaults.ts';
import { compareSpecs } from './compare.ts';
import { loadSpec, mergePartial } from './index.ts';
import { applyEnv, parseSpec } from './load.ts';
import { validateSpec } from './validate.ts';
import { rejectsWithConfigError } from '../../testing/errors.ts';

const testdata = join(fileURLToPath(new URL('.', import.meta.url)), 'testdata');
const file = (n: string) => join(testdata, n);

describe('loadSpec', () => {
  test('a minimal file gets every default', async () => {
    const spec = await loadSpec({ file: file('valid-minimal.yaml') });
    expect(spec).toMatchObject({
      name: 'default',
      provider: 'auto',
      kubeVersion: 'v1.37.1',
      timeouts: { nodeReady: '90s' },
    });
    expect(spec.kubelet.nodeName).toMatch(/^credprov-/);
  });

  test('a full file keeps what it says', async () => {
    const spec = await loadSpec({ file: file('valid-full.yaml') });
    expect(spec.kubelet.config).toEqual({ imagePullCredentialsVerificationPolicy: 'AlwaysVerify' });
    expect(spec.credentialProvider?.plugins).toEqual({ fake: '/opt/credprov/fake-credential-provider' });
  });

  test('unknown keys are errors that name the field path and the file', async () => {
    const err = await rejectsWithConfigError(loadSpec({ file: file('invalid-unknown-field.yaml') }));
    expect(err.file).toBe(file('invalid-unknown-field.yaml'));
    expect(err.problems.map((p) => p.field)).toEqual(['kubelet.nodename', 'timeouts.nodeready']);
    expect(err.problems[0]!.message).toContain('known: nodeName, version, config, extraArgs');
  });

  test('kubelet.version outside the skew policy is refused with the rule named', () => {
    const problems = validateSpec(applyDefaults({ kubeVersion: 'v1.37.1', kubelet: { version: '1.33' } }));
    expect(problems).toEqual([
      {
        field: 'kubelet.version',
        message: expect.stringMatching(
          /4 minor versions older than kube-apiserver v1\.37\.1: a kubelet may be up to 3 minor versions older/,
        ),
      },
    ]);
    expect(validateSpec(applyDefaults({ kubeVersion: 'v1.37.1', kubelet: { version: '1.34' } }))).toEqual([]);
  });

  test('validation reports every problem at once, each with its field', async () => {
    const err = await rejectsWithConfigError(loadSpec({ file: file('invalid-values.yaml') }));
    expect(err.problems.map((p) => p.field).sort()).toEqual([
      'credentialProvider.config.providers[0].name',
      'credentialProvider.plugins.../evil',
      'kubeVersion',
      'kubelet.config.containerRuntimeEndpoint',
      'kubelet.extraArgs[0]',
      'kubelet.extraArgs[1]',
      'name',
      'provider',
      'timeouts.nodeReady',
    ]);
    expect(err.exitCode).toBe(2);
  });

  test('wrong types say what was expected', () => {
    expect(() => parseSpec('featureGates: {kubelet: {A: yes-please}}\nkubelet: {extraArgs: {}}')).toThrow(ConfigError);
    try {
      parseSpec('featureGates: {kubelet: {A: "on"}}\nkubelet: {extraArgs: {}}');
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        { field: 'featureGates.kubelet.A', message: 'expected true or false, got string "on"' },
        { field: 'kubelet.extraArgs', message: 'expected a list of strings, got a mapping' },
      ]);
    }
  });

  test('a missing file is a config error naming it', async () => {
    const err = await rejectsWithConfigError(loadSpec({ file: file('nope.yaml') }));
    expect(err.reason).toContain('nope.yaml');
  });

  test('CREDPROV_* variables override the file and flags override both', async () => {
    const spec = await loadSpec({
      file: file('valid-full.yaml'),
      env: { CREDPROV_KUBE_VERSION: 'v1.36.2', CREDPROV_KUBELET_FEATURE_GATES: 'Foo=false', CREDPROV_PROVIDER: 'kind' },
      overrides: { provider: 'local' },
    });
    expect(spec.kubeVersion).toBe('v1.36.2');
    expect(spec.provider).toBe('local');
    expect(spec.featureGates.kubelet).toEqual({ KubeletEnsureSecretPulledImages: true, Foo: false });
  });

  test('a deprecated variable still works and warns with its replacement', () => {
    const warnings: string[] = [];
    const out = applyEnv({}, { CREDPROV_KUBE_DIR: '/k' }, { warn: (m: string) => warnings.push(m) } as never);
    expect(out.binDir).toBe('/k');
    expect(warnings).toEqual(['CREDPROV_KUBE_DIR is deprecated; use CREDPROV_KUBE_BIN_DIR']);
  });
});

describe('validateSpec', () => {
  test('a credential provider needs an inline config or a file, not both', () => {
    const spec = applyDefaults({ credentialProvider: { plugins: {} } });
    expect(validateSpec(spec)).toEqual([
      { field: 'credentialProvider', message: 'needs config (inline) or configFile' },
    ]);
  });

  test('the existing provider needs a kubeconfig', () => {
    expect(validateSpec(applyDefaults({ provider: 'existing' })).map((p) => p.field)).toEqual(['existing.kubeconfig']);
  });
});

describe('compareSpecs', () => {
  const base = applyDefaults({ name: 'x', provider: 'local' });

  test('equal specs (gate order aside) are the same environment', () => {
    const a = applyDefaults(mergePartial({ name: 'x' }, { featureGates: { kubelet: { A: true, B: false } } }));
    const b = applyDefaults(mergePartial({ name: 'x' }, { featureGates: { kubelet: { B: false, A: true } } }));
    expect(compareSpecs(a, b)).toBe('same');
  });

  test('kubelet-only changes need just a kubelet restart', () => {
    expect(
      compareSpecs(
        base,
        applyDefaults({ name: 'x', kubelet: { config: { imagePullCredentialsVerificationPolicy: 'NeverVerify' } } }),
      ),
    ).toBe('kubelet');
  });

  test("a kind cluster's shape: unsaid is the running one's; a different worker count is another environment", () => {
    const two = applyDefaults({ name: 'x', provider: 'kind', kindCluster: { workers: 1 } });
    expect(compareSpecs(two, applyDefaults({ name: 'x' }))).toBe('same');
    expect(compareSpecs(two, applyDefaults({ name: 'x', kindCluster: { workers: 1 } }))).toBe('same');
    expect(compareSpecs(two, applyDefaults({ name: 'x', kindCluster: { workers: 0 } }))).toBe('different');
  });

  test('a different version or API server gate needs a new environment', () => {
    expect(compareSpecs(base, applyDefaults({ name: 'x', kubeVersion: 'v1.36.1' }))).toBe('different');
    expect(compareSpecs(base, applyDefaults({ name: 'x', featureGates: { apiserver: { X: true } } }))).toBe(
      'different',
    );
    expect(compareSpecs(base, applyDefaults({ name: 'x', apiserver: { authenticationConfigFile: '/a.yaml' } }))).toBe(
      'different',
    );
  });
});
