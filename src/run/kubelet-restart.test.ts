import { expect, test } from '@jest/globals';
import { silentProgress } from '../core/progress.ts';
import type { Environment, EnvironmentProvider } from '../cluster/provider.ts';
import { tryRestartKubelet } from './kubelet-restart.ts';

const env = { name: 'before' } as Environment;
const provider = (restart: EnvironmentProvider['restartKubelet']) =>
  ({ restartKubelet: restart }) as EnvironmentProvider;

test('a kubelet that comes back starts, with the restarted environment', async () => {
  const after = { name: 'after' } as Environment;
  const r = await tryRestartKubelet({ provider: provider(async () => after), progress: silentProgress }, env, {});
  expect(r).toEqual({ outcome: 'starts', error: '', env: after });
});

test('a kubelet that does not come back refuses to start, with its own error and the environment given', async () => {
  const refuse = async (): Promise<Environment> => {
    throw new Error('kubelet exited: tokenAttributes is forbidden');
  };
  const r = await tryRestartKubelet({ provider: provider(refuse), progress: silentProgress }, env, {});
  expect(r).toEqual({ outcome: 'refuses to start', error: 'kubelet exited: tokenAttributes is forbidden', env });
});
