// The recording wrapper is transparent (same stdout, stderr, exit status and
// stdin for the plugin) and records each run without keeping secrets.
import { describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useTempDir } from '../testing/tmp.ts';
import { installRecordingWrapper, readWrappedInvocations, redactWrapperLog } from './recording-wrapper.ts';

const dir = useTempDir('credprov-wrapper-');

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6ZGVmYXVsdDpwIiwiYXVkIjpbImF1ZCJdfQ.c2ln';

async function fakePlugin(body: string): Promise<string> {
  const path = join(dir(), `plugin-${Math.random().toString(36).slice(2)}`);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

describe('recording wrapper', () => {
  test('passes stdin, args and env through and replays stdout, stderr and the exit status; records the run', async () => {
    const target = await fakePlugin(`req=$(cat)
echo "args:$*" >&2
echo "AWS_REGION=$AWS_REGION" >&2
printf '{"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderResponse","cacheKeyType":"Registry","cacheDuration":"6h0m0s","auth":{"reg.io":{"username":"AWS","password":"pw-secret"}}}'
exit 0`);
    const logDir = join(dir(), 'log1');
    const wrapper = await installRecordingWrapper({ binDir: join(dir(), 'bin'), name: 'my-provider', target, logDir });
    const request = JSON.stringify({
      apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
      kind: 'CredentialProviderRequest',
      image: 'reg.io/a/b',
      serviceAccountToken: JWT,
      serviceAccountAnnotations: { k: 'v' },
    });
    const r = await execa(wrapper, ['--flag'], { input: request, env: { AWS_REGION: 'eu-west-1' }, reject: false });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ cacheKeyType: 'Registry' });
    expect(String(r.stderr)).toContain('args:--flag');
    expect(String(r.stderr)).toContain('AWS_REGION=eu-west-1');
    const [inv, ...rest] = await readWrappedInvocations(logDir);
    expect(rest).toEqual([]);
    expect(inv).toMatchObject({
      provider: 'my-provider',
      exitCode: 0,
      args: ['--flag'],
      env: { AWS_REGION: 9 },
      request: {
        image: 'reg.io/a/b',
        tokenPresent: true,
        tokenClaims: { sub: 'system:serviceaccount:default:p', aud: ['aud'] },
        annotations: { k: 'v' },
      },
      response: { cacheKeyType: 'Registry', cacheDuration: '6h0m0s', auth: { 'reg.io': 'AWS' } },
    });
    expect(inv!.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(inv)).not.toContain('pw-secret');
    expect(JSON.stringify(inv)).not.toContain(JWT);

    await redactWrapperLog(logDir, (t) => t.replaceAll('pw-secret', '<redacted>'));
    const files = await Promise.all(['request', 'stdout'].map((f) => readFile(join(logDir, inv!.id, f), 'utf8')));
    expect(files.join('')).not.toContain('pw-secret');
    expect(files.join('')).not.toContain(JWT);
  });

  test('a failing plugin: same exit status and stderr, recorded with no response object', async () => {
    const target = await fakePlugin('cat >/dev/null; echo "no credentials for this image" >&2; exit 3');
    const logDir = join(dir(), 'log2');
    const wrapper = await installRecordingWrapper({ binDir: join(dir(), 'bin2'), name: 'p', target, logDir });
    const r = await execa(wrapper, [], { input: '{}', reject: false });
    expect(r.exitCode).toBe(3);
    expect(String(r.stderr)).toContain('no credentials for this image');
    const [inv] = await readWrappedInvocations(logDir);
    expect(inv).toMatchObject({ exitCode: 3, stderr: expect.stringContaining('no credentials'), response: {} });
  });
});
