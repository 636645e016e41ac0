import { describe, expect, test } from '@jest/globals';
import type { GoTool } from '../cluster/binaries/go.ts';
import { UsageError } from '../core/errors.ts';
import { useTempDir } from '../testing/tmp.ts';
import { kubeVersionOrMinor } from './kube-version-flag.ts';

const cache = useTempDir('credprov-kv-');
/** A Go module proxy that knows v1.36.0 … v1.36.5. */
const proxy = (): GoTool =>
  ({
    listVersions: async () => ['v1.36.0', 'v1.36.4', 'v1.37.1'],
    info: async (_m: string, v: string) =>
      /^v1\.36\.[0-5]$/.test(v) ? { Version: v, Time: '2026-01-01T00:00:00Z' } : undefined,
  }) as unknown as GoTool;

describe('certify exec-plugin --kube-version takes a minor, as certify kubelet-plugin does', () => {
  test('an exact release is itself', async () => {
    expect(await kubeVersionOrMinor('certify exec-plugin', 'v1.36.5', {}, proxy)).toEqual({ version: 'v1.36.5' });
    expect((await kubeVersionOrMinor('certify exec-plugin', '1.37.1', {}, proxy)).version).toBe('v1.37.1');
  });

  test('a minor is its newest release (here from the proxy: nothing is cached), and the note says so', async () => {
    const env = { CREDPROV_CACHE_DIR: cache() };
    for (const minor of ['1.36', 'v1.36', '1.36.x']) {
      const r = await kubeVersionOrMinor('certify exec-plugin', minor, env, proxy);
      expect(r.version).toBe('v1.36.5');
      expect(r.note).toContain('taking kubectl and client-go at v1.36.5');
    }
  });

  test('a version credprov does not support is bad input, said as such', async () => {
    await expect(kubeVersionOrMinor('certify exec-plugin', '1.20', {}, proxy)).rejects.toThrow(UsageError);
    await expect(kubeVersionOrMinor('certify exec-plugin', 'latest', {}, proxy)).rejects.toThrow(
      /--kube-version "latest"/,
    );
  });
});
