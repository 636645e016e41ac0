import { describe, expect, test } from '@jest/globals';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { providerConfigText } from '../api/credentialprovider/config-text.ts';
import { configHash } from '../model/provider-config-load.ts';
import { configBytesOf, expectedConfigHash, parseConfigInfo } from './config-loaded.ts';

const METRIC = 'kubelet_credential_provider_config_info';

describe('parseConfigInfo', () => {
  test('the hash label of the gauge at 1, with its lines as evidence', () => {
    const text = [
      `# HELP ${METRIC} [ALPHA] Information about the last applied credential provider configuration with hash as label`,
      `# TYPE ${METRIC} gauge`,
      `${METRIC}{hash="sha256:abc"} 1`,
      'kubelet_credential_provider_plugin_errors_total{plugin_name="x"} 0',
    ].join('\n');
    expect(parseConfigInfo(text, METRIC)).toEqual({
      hashes: ['sha256:abc'],
      lines: [`${METRIC}{hash="sha256:abc"} 1`],
    });
  });
  test('no sample: no hash', () => {
    expect(parseConfigInfo('other 1\n', METRIC)).toEqual({ hashes: [], lines: [] });
  });
});

describe('the bytes credprov wrote', () => {
  test('inline: the one serializer providers write it with', async () => {
    const config = { apiVersion: 'kubelet.config.k8s.io/v1', kind: 'CredentialProviderConfig', providers: [] };
    expect(await expectedConfigHash({ plugins: {}, config })).toBe(
      configHash([Buffer.from(providerConfigText(config))]),
    );
  });
  test('a directory: its config files in the kubelet’s order, others skipped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-cfghash-'));
    try {
      await writeFile(join(dir, 'b.yaml'), 'B');
      await writeFile(join(dir, 'a.json'), 'A');
      await writeFile(join(dir, 'notes.txt'), 'N');
      await mkdir(join(dir, 'sub.yml'));
      const files = await configBytesOf({ plugins: {}, configFile: dir });
      expect(files.map((f) => f.path)).toEqual([join(dir, 'a.json'), join(dir, 'b.yaml')]);
      expect(await expectedConfigHash({ plugins: {}, configFile: dir })).toBe(
        configHash([Buffer.from('A'), Buffer.from('B')]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
