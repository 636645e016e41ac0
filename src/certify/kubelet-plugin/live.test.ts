// Pieces of certify --live and --registry-for that need no cluster.
import { describe, expect, test } from '@jest/globals';
import { noopLogger } from '../../core/logger.ts';
import { runCli } from '../../testing/cli.ts';
import { parsePluginErrors } from './live.ts';
import { reachAt } from './verify-pull.ts';

describe('parsePluginErrors', () => {
  const metrics = [
    '# HELP kubelet_credential_provider_plugin_errors_total [ALPHA] Number of errors from credential provider plugin',
    '# TYPE kubelet_credential_provider_plugin_errors_total counter',
    'kubelet_credential_provider_plugin_errors_total{plugin_name="ecr-credential-provider"} 3',
    'kubelet_credential_provider_plugin_errors_total{plugin_name="other"} 7',
    'kubelet_credential_provider_plugin_duration_bucket{plugin_name="ecr-credential-provider",le="0.005"} 0',
  ].join('\n');

  test('sums the samples of one plugin and keeps the lines as evidence', () => {
    expect(
      parsePluginErrors(metrics, 'kubelet_credential_provider_plugin_errors_total', 'ecr-credential-provider'),
    ).toEqual({
      value: 3,
      lines: ['kubelet_credential_provider_plugin_errors_total{plugin_name="ecr-credential-provider"} 3'],
    });
  });

  test('a counter never incremented has no sample: zero', () => {
    expect(parsePluginErrors(metrics, 'kubelet_credential_provider_plugin_errors_total', 'absent').value).toBe(0);
    // The pre-1.34 name does not match the _total samples.
    expect(parsePluginErrors(metrics, 'kubelet_credential_provider_plugin_errors', 'other').value).toBe(0);
  });
});

describe('--registry-for', () => {
  test('reachAt replaces only a mapped host, keeping repository and tag or digest', () => {
    const map = { '123456789012.dkr.ecr.us-east-1.amazonaws.com': 'ecr.registry.test:5001' };
    expect(reachAt('123456789012.dkr.ecr.us-east-1.amazonaws.com/team/app:v1', map)).toBe(
      'ecr.registry.test:5001/team/app:v1',
    );
    expect(reachAt('other.example/team/app:v1', map)).toBe('other.example/team/app:v1');
    expect(reachAt('123456789012.dkr.ecr.us-east-1.amazonaws.com/team/app@sha256:' + 'a'.repeat(64), map)).toBe(
      `ecr.registry.test:5001/team/app@sha256:${'a'.repeat(64)}`,
    );
  });

  test('a malformed value is a usage error (exit 2); --live without --image too', async () => {
    const bad = await runCli(
      [
        'certify',
        'kubelet-plugin',
        '--plugin',
        '/bin/true',
        '--config',
        'fixtures/plugins/configs/v1.yaml',
        '--registry-for',
        'no-equals-sign',
      ],
      { log: noopLogger },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--registry-for no-equals-sign: expected IMAGE_HOST=REGISTRY_HOST\[:PORT\]/);
    const live = await runCli(
      ['certify', 'kubelet-plugin', '--plugin', '/bin/true', '--config', 'fixtures/plugins/configs/v1.yaml', '--live'],
      { log: noopLogger },
    );
    expect(live.code).toBe(2);
    expect(live.stderr).toMatch(/--live needs --image/);
  });
});
