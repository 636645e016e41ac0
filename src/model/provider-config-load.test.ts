import { describe, expect, test } from '@jest/globals';
import { configFileOrder, configHash, errorCarries, predictConfigLoad } from './provider-config-load.ts';

const b = (s: string) => Buffer.from(s);

describe('config hash (kubelet config.go readCredentialProviderConfig)', () => {
  // Computed independently (Python: sha256 over struct.pack(">Q", len) + bytes per file).
  test.each([
    [[], 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    [[''], 'sha256:af5570f5a1810b7af78caf4bc70a660f0df51e42baf91d4de5b2328de0e83dfc'],
    [['a', 'bc'], 'sha256:3fafa1cf2f19a7c1129beb20cf0983f73a489a221fc0dd2f16d1be292d089205'],
    [['ab', 'c'], 'sha256:601d5476e2ccfe2c87a2bba7a322659734a05749d5b5aa781f513e4912db0d5f'],
  ])('%j → %s', (files, hash) => {
    expect(configHash(files.map(b))).toBe(hash);
  });

  test('the length prefix keeps a split between files from hashing like another split', () => {
    expect(configHash([b('a'), b('bc')])).not.toBe(configHash([b('ab'), b('c')]));
  });
});

describe('config directory order', () => {
  test('only *.json, *.yaml, *.yml files, in byte order of their paths', () => {
    const entries = ['b.yml', 'a.json', 'B.yaml', 'c.txt', 'd.yaml.bak', 'sub.yaml', '.hidden.yaml'].map((name) => ({
      name,
      isDirectory: name === 'sub.yaml',
    }));
    expect(configFileOrder('/c', entries)).toEqual(['/c/.hidden.yaml', '/c/B.yaml', '/c/a.json', '/c/b.yml']);
  });
});

describe('predictConfigLoad', () => {
  const files = [
    { path: '/c/1.yaml', providers: ['z'] },
    { path: '/c/2.yaml', providers: ['a', 'm'] },
  ];
  test('merged in file order', () => {
    expect(predictConfigLoad('/c', 'directory', files, '1.34')).toMatchObject({
      outcome: 'starts',
      providers: ['z', 'a', 'm'],
    });
  });
  test('a repeated name, also within one file', () => {
    expect(
      predictConfigLoad('/c', 'directory', [...files, { path: '/c/3.yaml', providers: ['a'] }], '1.37'),
    ).toMatchObject({ error: 'duplicate provider name "a" found in configuration file(s)' });
    expect(
      predictConfigLoad('/c/f.yaml', 'file', [{ path: '/c/f.yaml', providers: ['x', 'x'] }], '1.36'),
    ).toMatchObject({ outcome: 'refuses to start' });
  });
  test('an empty directory (1.34+) and any directory (1.33)', () => {
    expect(predictConfigLoad('/c', 'directory', [], '1.35')).toMatchObject({
      error: 'no configuration files found in directory "/c"',
    });
    expect(predictConfigLoad('/c', 'directory', files, '1.33')).toMatchObject({
      error: 'unable to read external registry credential provider configuration from "/c": read /c: is a directory',
    });
  });
  test('klog quotes the error inside err="…"', () => {
    const line =
      'E1126 "Failed to register CRI auth plugins" err="duplicate provider name \\"a\\" found in configuration file(s)"';
    expect(errorCarries(line, 'duplicate provider name "a" found in configuration file(s)')).toBe(true);
    expect(errorCarries(line, 'duplicate provider name "b" found in configuration file(s)')).toBe(false);
  });
  test('a config path the provider moved (kind copies it into the node) still matches by its last element', () => {
    const line =
      'E1126 "Failed to register CRI auth plugins" err="no configuration files found in directory \\"/etc/credprov/empty\\""';
    const predicted = 'no configuration files found in directory "/tmp/x/empty"';
    expect(errorCarries(line, predicted, '/tmp/x/empty')).toBe(true);
    expect(errorCarries(line, predicted)).toBe(false);
    expect(errorCarries(line.replace('/empty', '/other'), predicted, '/tmp/x/empty')).toBe(false);
  });
});
