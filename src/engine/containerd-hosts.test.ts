import { describe, expect, test } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostsTomlText, trustForContainerd } from './containerd-hosts.ts';

describe('hosts.toml for a harness registry', () => {
  test('server alone: what every route wrote before mirrors', () => {
    expect(hostsTomlText({ url: 'https://127.0.0.5:5000', caFile: '/c/ca.crt' })).toBe(
      'server = "https://127.0.0.5:5000"\nca = "/c/ca.crt"\n',
    );
  });

  test('mirrors after the top-level keys, in order, with capabilities, their own CA and override_path', () => {
    expect(
      hostsTomlText({ url: 'https://127.0.0.5:5000' }, [
        { url: 'https://127.0.0.6:5001', capabilities: ['pull', 'resolve'], caFile: '/c/mirror-0-ca.crt' },
        { url: 'http://127.0.0.7:5002/cache', overridePath: true },
      ]),
    ).toBe(
      [
        'server = "https://127.0.0.5:5000"',
        '',
        '[host."https://127.0.0.6:5001"]',
        '  capabilities = ["pull", "resolve"]',
        '  ca = "/c/mirror-0-ca.crt"',
        '',
        '[host."http://127.0.0.7:5002/cache"]',
        '  override_path = true',
        '',
      ].join('\n'),
    );
  });

  test('trustForContainerd copies each https mirror CA next to hosts.toml and names it there', async () => {
    const root = await mkdtemp(join(tmpdir(), 'credprov-hosts-'));
    try {
      const ca = join(root, 'lab-ca.crt');
      await writeFile(ca, 'CA');
      const dir = await trustForContainerd(join(root, 'certs.d'), 'origin.test:443', {
        caCertPath: ca,
        server: '127.0.0.5:5000',
        mirrors: [
          { url: 'https://127.0.0.6:5001', caCertPath: ca, capabilities: ['pull'] },
          { url: 'http://127.0.0.7:1', caCertPath: ca },
        ],
      });
      const toml = await readFile(join(dir, 'hosts.toml'), 'utf8');
      expect(toml).toContain(`ca = "${join(dir, 'mirror-0-ca.crt')}"`);
      expect(await readFile(join(dir, 'mirror-0-ca.crt'), 'utf8')).toBe('CA');
      // plain http mirror: no CA named
      expect(toml.split('[host."http://127.0.0.7:1"]')[1]).not.toContain('ca =');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
