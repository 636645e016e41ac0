// The existing provider against a real cluster (a local one standing in for
// "any cluster from a kubeconfig"): it finds the Ready node, refuses to
// restart the kubelet, and `down` forgets the cluster without stopping it.
// Suites that need plugin installation skip on it with the reason.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyDefaults } from '../../src/api/spec/defaults.ts';
import { PrerequisiteError } from '../../src/core/errors.ts';
import { silentProgress } from '../../src/core/progress.ts';
import { existingProvider } from '../../src/cluster/existing/index.ts';
import { localProvider } from '../../src/cluster/local/index.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { runSuites } from '../../src/run/runner.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { smokeSuite } from '../../suites/smoke/index.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const LOCAL = e2eEnvName('existing-backing');
const local = localProvider();
const available = await local.isAvailable();
const it = testIf(
  all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }),
);

let backing: Environment | undefined;
let state: string | undefined;
const setup = async () => {
  backing ??= await local.up(applyDefaults({ name: LOCAL }), silentProgress);
  state ??= await mkdtemp(join(tmpdir(), 'credprov-existing-'));
  return { backing, env: { ...process.env, CREDPROV_STATE_DIR: state, PATH: `${backing.binDir}:${process.env.PATH}` } };
};

describe('existing provider', () => {
  afterAll(async () => {
    await local.down(LOCAL);
    if (state) await rm(state, { recursive: true, force: true });
  });

  it('EXISTING-UP: finds the Ready node through the kubeconfig; cannot restart the kubelet; down leaves the cluster running', async () => {
    const { backing: b, env } = await setup();
    const p = existingProvider({ env, kubeconfig: b.kubeconfig });
    expect(await p.isAvailable()).toEqual({ ok: true });
    const e = await p.up(
      applyDefaults({ name: 'ext', provider: 'existing', existing: { kubeconfig: b.kubeconfig } }),
      silentProgress,
    );
    expect(e).toMatchObject({ provider: 'existing', nodeName: b.nodeName, kubeconfig: b.kubeconfig });
    await expect(p.restartKubelet(e, {})).rejects.toBeInstanceOf(PrerequisiteError);
    await p.down(e);
    expect((await local.status(b)).ready).toBe(true);
  }, 240_000);

  it('EXISTING-SKIP: a suite that installs plugins skips on it, naming the missing capabilities', async () => {
    const { backing: b, env } = await setup();
    const { report } = await runSuites([smokeSuite], {
      baseSpec: { name: 'ext', provider: 'existing', existing: { kubeconfig: b.kubeconfig } },
      artifactsDir: join(state!, 'artifacts'),
      processEnv: { ...env, CI: '' },
      providerFor: async () => existingProvider({ env, kubeconfig: b.kubeconfig }),
    });
    expect(report.checks.map((c) => c.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
    expect(report.checks[0]!.message).toBe(
      "provider existing cannot install plugins into the kubelet's plugin dir (installPlugins), pull from registries on this host's loopback (hostRegistries)",
    );
  }, 240_000);
});
