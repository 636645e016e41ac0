import { writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '../../core/errors.ts';
import {
  loadProviderConfig,
  parseProviderConfig,
  providerConfigWarnings,
  qualifiedNameErrors,
  validateProviderConfig,
  type ValidateOptions,
} from './config.ts';
import type { CredentialProviderConfig } from './types.ts';
import { useTempDir } from '../../testing/tmp.ts';

const FIXTURES = new URL('../../../fixtures/configs/', import.meta.url).pathname;
const fixture = (name: string) => join(FIXTURES, name);
const GATE_OFF = { KubeletServiceAccountTokenForCredentialProviders: false };

async function problemsOf(path: string, opts?: ValidateOptions): Promise<string[]> {
  try {
    await loadProviderConfig(path, opts);
    return [];
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return e.problems.length > 0 ? e.problems.map((p) => `${p.field}: ${p.message}`) : [e.reason];
  }
}

const verdicts = (
  JSON.parse(readFileSync(fixture('kubelet-v1.37.1-verdicts.json'), 'utf8')) as { verdicts: Record<string, string> }
).verdicts;
const fixtureNames = readdirSync(FIXTURES).filter((f) => !f.startsWith('kubelet-'));

describe('every fixture gets the verdict kubelet v1.37.1 gave it (RegisterCredentialProviderPlugins)', () => {
  const cases = fixtureNames.flatMap(
    (f) =>
      [
        [f, false],
        [f, true],
      ] as const,
  );
  test.each(cases)('%s (gate off: %s)', async (f, gateOff) => {
    const kubelet = verdicts[`${f}${gateOff ? ' [gate off]' : ''}`]!;
    const ours = await problemsOf(fixture(f), { kubeVersion: '1.37', featureGates: gateOff ? GATE_OFF : {} });
    expect(ours.length === 0).toBe(kubelet === 'OK');
    // Each validation message the kubelet printed is among ours (ours add list indexes).
    const listed = /^failed to validate credential provider config: \[?(.*?)\]?$/s.exec(kubelet);
    if (listed) {
      const flat = ours.map((p) => p.replace(/\[\d+\]/g, ''));
      for (const msg of listed[1]!.split(/, (?=providers)/)) expect(flat).toContain(msg);
    }
  });
});

describe('strict decoding', () => {
  test('a typo in a field name is an unknown field with a suggestion, and its consequence is shown', async () => {
    expect(await problemsOf(fixture('invalid-typo-matchimages.yaml'))).toEqual([
      'providers[0].matchimages: unknown field (line 6); did you mean "matchImages"?',
      'providers[0].matchImages: Required value: at least 1 item in matchImages is required',
    ]);
  });

  test('a repeated key is a duplicate field with its line', async () => {
    expect(await problemsOf(fixture('invalid-duplicate-key.yaml'))).toContain(
      'providers[0].name: duplicate field (line 6)',
    );
  });

  test('an unquoted number for a duration is a type error, as metav1.Duration only takes strings', async () => {
    const [p] = await problemsOf(fixture('invalid-unquoted-duration.yaml'));
    expect(p).toMatch(
      /^providers\[0\]\.defaultCacheDuration: Invalid value: 0: must be a quoted duration string such as "5m", not a number \(line 7\)/,
    );
  });

  test('YAML 1.1 reads on as a boolean, which is no provider name', async () => {
    const ps = await problemsOf(fixture('invalid-wrong-types.yaml'));
    expect(ps[0]).toMatch(
      /^providers\[0\]\.name: Invalid value: true: must be a string, not a boolean .*YAML reads "on" as a boolean/,
    );
    expect(ps).toContain(
      'providers[0].matchImages: Invalid value: "127.0.0.1:5000": must be a list, not a string (line 6)',
    );
    expect(ps.some((p) => p.startsWith('providers[0].args[1]: Invalid value: 5000: must be a string'))).toBe(true);
  });

  test('tokenAttributes is an unknown field in a v1beta1 config', async () => {
    expect(await problemsOf(fixture('invalid-token-attributes-in-v1beta1-config.yaml'))).toEqual([
      'providers[0].tokenAttributes: unknown field (line 9)',
    ]);
  });

  test('non-YAML text is one ConfigError naming the file and line', () => {
    expect(() => parseProviderConfig('just a sentence\n', 'x.yaml')).toThrow(
      'x.yaml:1: not a CredentialProviderConfig: the document is a plain value',
    );
    expect(() => parseProviderConfig('a: [1\nb: c\n', 'y.yaml')).toThrow(/^y\.yaml:2:1: not valid YAML: /);
    expect(() => parseProviderConfig('{"a": }', 'z.json')).toThrow(
      "z.json:1:7: not valid JSON: invalid character '}' looking for beginning of value",
    );
    expect(() => parseProviderConfig('', 'e.yaml')).toThrow('e.yaml: is empty, no CredentialProviderConfig document');
  });

  test('a wrong config apiVersion or kind is reported on its field', async () => {
    expect(await problemsOf(fixture('invalid-kind.yaml'))).toEqual([
      'apiVersion: Unsupported value: "kubelet.config.k8s.io/v2": supported values: "kubelet.config.k8s.io/v1alpha1", "kubelet.config.k8s.io/v1beta1", "kubelet.config.k8s.io/v1"',
      'kind: Unsupported value: "CredentialProviderConfiguration": supported values: "CredentialProviderConfig"',
    ]);
  });

  test('a valid config decodes to the wire types', () => {
    const cfg = parseProviderConfig(
      readFileSync(fixture('valid-multi-provider.yaml'), 'utf8'),
      'valid-multi-provider.yaml',
    );
    expect(cfg.providers.map((p) => p.name)).toEqual(['zeta-plugin', 'alpha-plugin']);
    expect(cfg.providers[0]!.env).toEqual([{ name: 'PLUGIN_MODE', value: 'zeta' }]);
  });
});

describe('validation rules, with the kubelet wording', () => {
  test('provider names: no slash, no space, not . or .., unique (from 1.34 a read error)', async () => {
    expect(await problemsOf(fixture('invalid-provider-names.yaml'))).toEqual([
      `providers[0].name: Invalid value: "a/b": provider name cannot contain '/'`,
      'providers[1].name: Invalid value: "a b": provider name cannot contain spaces',
      `providers[2].name: Invalid value: ".": provider name cannot be '.'`,
      `providers[3].name: Invalid value: "..": provider name cannot be '..'`,
      'providers[5].name: duplicate provider name "dup" found in configuration file(s)',
    ]);
    expect((await problemsOf(fixture('invalid-provider-names.yaml'), { kubeVersion: '1.33' })).at(-1)).toBe(
      'providers[5].name: Duplicate value: "dup"',
    );
  });

  test('an empty name is reported although the kubelet only fails on it later, at exec lookup', async () => {
    expect((await problemsOf(fixture('invalid-empty-name.yaml')))[0]).toMatch(
      /^providers\[0\]\.name: Required value: .*is a directory/,
    );
  });

  test('apiVersion, matchImages and defaultCacheDuration are required', async () => {
    expect(await problemsOf(fixture('invalid-missing-required.yaml'))).toEqual([
      'providers[0].apiVersion: Required value',
      'providers[0].matchImages: Required value: at least 1 item in matchImages is required',
      'providers[0].defaultCacheDuration: Required value',
    ]);
    expect(await problemsOf(fixture('invalid-no-providers.yaml'))).toEqual([
      'providers: Required value: at least 1 item in plugins is required',
    ]);
  });

  test('an unknown protocol apiVersion lists the supported ones, sorted', async () => {
    expect(await problemsOf(fixture('invalid-protocol-apiversion.yaml'))).toEqual([
      'providers[0].apiVersion: Unsupported value: "credentialprovider.kubelet.k8s.io/v2": supported values: "credentialprovider.kubelet.k8s.io/v1", "credentialprovider.kubelet.k8s.io/v1alpha1", "credentialprovider.kubelet.k8s.io/v1beta1"',
    ]);
  });

  test('matchImages entries must parse as https:// + entry', async () => {
    expect(await problemsOf(fixture('invalid-match-images.yaml'))).toEqual([
      'providers[0].matchImages[0]: Invalid value: "reg.io:abc": match image is invalid: parse "https://reg.io:abc": invalid port ":abc" after host',
      'providers[0].matchImages[1]: Invalid value: "bad host.io": match image is invalid: parse "https://bad host.io": invalid character " " in host name',
      'providers[0].matchImages[2]: Invalid value: "reg[0-9].io": match image is invalid: parse "https://reg[0-9].io": invalid IP-literal',
      'providers[0].matchImages[3]: Invalid value: "reg.io/a%zz": match image is invalid: parse "https://reg.io/a%zz": invalid URL escape "%zz"',
    ]);
  });

  test('a negative defaultCacheDuration is printed as Go prints durations', async () => {
    expect(await problemsOf(fixture('invalid-negative-duration.yaml'))).toEqual([
      'providers[0].defaultCacheDuration: Invalid value: "-1m0s": must be greater than or equal to 0',
    ]);
  });

  test("a duration Go cannot parse is reported with time.ParseDuration's message", () => {
    const cfg = base({ defaultCacheDuration: '1d' });
    expect(validateProviderConfig(cfg)).toEqual(
      ['providers[0].defaultCacheDuration: Invalid value: "1d": time: unknown unit "d" in duration "1d"'].map(split),
    );
  });

  test('tokenAttributes rules: audience, requireServiceAccount, annotation keys, cacheType', async () => {
    expect(await problemsOf(fixture('invalid-token-attributes-fields.yaml'))).toEqual([
      'providers[0].tokenAttributes.serviceAccountTokenAudience: Required value',
      'providers[0].tokenAttributes.requiredServiceAccountAnnotationKeys: Forbidden: requireServiceAccount cannot be false when requiredServiceAccountAnnotationKeys is set',
      'providers[0].tokenAttributes.requiredServiceAccountAnnotationKeys: Duplicate value: "example.com/id"',
      "providers[0].tokenAttributes.requiredServiceAccountAnnotationKeys: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      "providers[0].tokenAttributes.optionalServiceAccountAnnotationKeys: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      'providers[0].tokenAttributes: Invalid value: ["example.com/id"]: annotation keys cannot be both required and optional',
      'providers[0].tokenAttributes.cacheType: Unsupported value: "Pod": supported values: "ServiceAccount", "Token"',
    ]);
  });

  test('tokenAttributes needs the v1 protocol', async () => {
    expect(await problemsOf(fixture('invalid-token-attributes-v1beta1.yaml'))).toEqual([
      'providers[0].tokenAttributes: Forbidden: tokenAttributes is only supported for credentialprovider.kubelet.k8s.io/v1 API version',
    ]);
  });

  test('annotation keys are checked lowercased, so capitals pass', () => {
    expect(qualifiedNameErrors('example.com/MyKey'.toLowerCase())).toEqual([]);
    expect(qualifiedNameErrors('Example.com/x')).toHaveLength(1);
    expect(qualifiedNameErrors('/x')).toEqual(['prefix part must be non-empty']);
    expect(qualifiedNameErrors('x/')).toHaveLength(2);
  });
});

describe('providerConfigWarnings', () => {
  test('flags entries the kubelet accepts but that never match an image', async () => {
    const cfg = await loadProviderConfig(fixture('valid-never-matches.yaml'));
    expect(providerConfigWarnings(cfg).map((w) => w.field)).toEqual(
      [0, 1, 2, 3].map((j) => `providers[0].matchImages[${j}]`),
    );
    expect(providerConfigWarnings(cfg)[0]!.message).toMatch(
      /^"https:\/\/reg\.io" never matches an image: drop the scheme/,
    );
  });

  test('has nothing to say about ordinary entries', async () => {
    expect(providerConfigWarnings(await loadProviderConfig(fixture('valid-multi-provider.yaml')))).toEqual([]);
  });
});

describe('version- and gate-dependent rules', () => {
  test('1.33: tokenAttributes without cacheType is valid once the alpha gate is on', async () => {
    const f = fixture('valid-service-account-1.33.yaml');
    expect(
      await problemsOf(f, {
        kubeVersion: '1.33',
        featureGates: { KubeletServiceAccountTokenForCredentialProviders: true },
      }),
    ).toEqual([]);
  });

  test('1.33: the gate is off by default, so tokenAttributes is forbidden', async () => {
    expect(await problemsOf(fixture('valid-service-account-1.33.yaml'), { kubeVersion: '1.33' })).toEqual([
      'providers[0].tokenAttributes: Forbidden: tokenAttributes is not supported when KubeletServiceAccountTokenForCredentialProviders feature gate is disabled',
    ]);
  });

  test('1.33: cacheType does not exist yet and is an unknown field', async () => {
    expect(
      await problemsOf(fixture('valid-service-account.yaml'), {
        kubeVersion: '1.33',
        featureGates: { KubeletServiceAccountTokenForCredentialProviders: true },
      }),
    ).toEqual(['providers[0].tokenAttributes.cacheType: unknown field (line 12)']);
  });

  test.each(['1.34', '1.35', '1.36', '1.37'])('%s: the gate is on by default and cacheType is required', async (v) => {
    expect(await problemsOf(fixture('valid-service-account.yaml'), { kubeVersion: v })).toEqual([]);
    expect(await problemsOf(fixture('invalid-token-attributes-no-cachetype.yaml'), { kubeVersion: v })).toEqual([
      'providers[0].tokenAttributes.requireServiceAccount: Required value',
      'providers[0].tokenAttributes.cacheType: Required value: cacheType is required to be set when tokenAttributes is specified. Supported values are: ServiceAccount, Token',
    ]);
  });

  test('turning the gate off on 1.37 forbids tokenAttributes', async () => {
    expect(
      await problemsOf(fixture('valid-service-account.yaml'), { kubeVersion: '1.37', featureGates: GATE_OFF }),
    ).toEqual([
      'providers[0].tokenAttributes: Forbidden: tokenAttributes is not supported when KubeletServiceAccountTokenForCredentialProviders feature gate is disabled',
    ]);
  });

  test('a version outside the table is a ConfigError', () => {
    expect(() => validateProviderConfig(base({}), { kubeVersion: '1.20' })).toThrow(ConfigError);
  });
});

describe('loadProviderConfig', () => {
  const tmp = useTempDir('credprov-config-test-');

  test('merges a directory in lexical order and ignores other files (1.34+)', async () => {
    const cfg = await loadProviderConfig(fixture('dir-valid'), { kubeVersion: '1.34' });
    expect(cfg.providers.map((p) => p.name)).toEqual(['fake-plugin', 'hub-plugin']);
  });

  test('a provider name in two files is an error naming both', async () => {
    expect(await problemsOf(fixture('dir-duplicate'))).toEqual([
      '20-b.yml: providers: duplicate provider name "fake-plugin" found in configuration file(s) (also in 10-a.yaml)',
    ]);
  });

  test('a directory without config files is an error', async () => {
    expect((await problemsOf(fixture('dir-empty')))[0]).toMatch(/no configuration files found in directory/);
  });

  test('a directory is refused for 1.33, which reads only files', async () => {
    expect((await problemsOf(fixture('dir-valid'), { kubeVersion: '1.33' }))[0]).toMatch(
      /is a directory; kubelet v1\.33 reads .* only as a file/,
    );
  });

  test('problems in a directory file are prefixed with the file name', async () => {
    const dir = join(tmp(), 'mixed');
    await import('node:fs/promises').then((fs) => fs.mkdir(dir));
    await writeFile(join(dir, 'a.yaml'), readFileSync(fixture('valid-minimal.yaml')));
    await writeFile(
      join(dir, 'b.json'),
      readFileSync(fixture('valid-json.json'), 'utf8').replace('"30s"', '"-5s"').replace('fake-plugin', 'other'),
    );
    expect(await problemsOf(dir)).toEqual([
      'b.json: providers[0].defaultCacheDuration: Invalid value: "-5s": must be greater than or equal to 0',
    ]);
  });

  test('a missing file says so', async () => {
    await expect(loadProviderConfig(join(tmp(), 'nope.yaml'))).rejects.toThrow(/nope\.yaml: no such file or directory/);
  });

  test('the refusal names the file and the kubelet version', async () => {
    await expect(
      loadProviderConfig(fixture('invalid-negative-duration.yaml'), { kubeVersion: '1.35' }),
    ).rejects.toThrow(
      /invalid-negative-duration\.yaml: kubelet v1\.35 would refuse this CredentialProviderConfig \(1 problem\)/,
    );
  });
});

function base(over: Record<string, unknown>): CredentialProviderConfig {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1',
    kind: 'CredentialProviderConfig',
    providers: [
      {
        name: 'p',
        matchImages: ['reg.io'],
        defaultCacheDuration: '1m',
        apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
        ...over,
      },
    ],
  };
}

function split(line: string) {
  const i = line.indexOf(': ');
  return { field: line.slice(0, i), message: line.slice(i + 2) };
}
