import { describe, expect, test } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readInvocationLog } from './invocation.ts';
import { installFakeProvider } from './fake-provider.ts';
import { runKubeletPlugin } from './kubelet-exec.ts';
import { useTempDir } from '../testing/tmp.ts';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const dir = useTempDir('credprov-fakeinst-');

describe('installFakeProvider', () => {
  test('installs a wrapper the kubelet can run with an empty environment', async () => {
    const scenarioFile = join(dir(), "it's scenario.json");
    await writeFile(
      scenarioFile,
      JSON.stringify({ rules: [{ match: '*.reg.example', auth: { '{registry}': { username: 'u', password: 'p' } } }] }),
    );
    const logFile = join(dir(), 'requests.jsonl');
    await installFakeProvider({ binDir: join(dir(), 'bin'), name: 'fake', scenarioFile, logFile });
    const inv = await runKubeletPlugin({
      binDir: join(dir(), 'bin'),
      name: 'fake',
      parentEnv: {},
      request: { apiVersion: V1, kind: 'CredentialProviderRequest', image: 'a.reg.example/x' },
    });
    expect(inv.stderr).toBe('');
    expect(inv.exitCode).toBe(0);
    expect(inv.response).toMatchObject({ auth: { 'a.reg.example': { username: 'u' } } });
    const [line] = await readInvocationLog<{ argv: string[]; image: string }>(logFile);
    expect(line).toMatchObject({ image: 'a.reg.example/x', argv: [join(dir(), 'bin', 'fake')] });
  });

  test("lets the provider entry's env choose another scenario", async () => {
    const other = join(dir(), 'other.json');
    await writeFile(other, JSON.stringify({ rules: [{ match: '*.reg.example', cacheKeyType: 'Global' }] }));
    await installFakeProvider({ binDir: join(dir(), 'bin'), name: 'fake2', scenarioFile: join(dir(), 'missing.json') });
    const inv = await runKubeletPlugin({
      binDir: join(dir(), 'bin'),
      name: 'fake2',
      parentEnv: {},
      env: [{ name: 'CREDPROV_FAKE_SCENARIO', value: other }],
      request: { apiVersion: V1, kind: 'CredentialProviderRequest', image: 'a.reg.example/x' },
    });
    expect(inv.response).toMatchObject({ cacheKeyType: 'Global' });
  });
});
