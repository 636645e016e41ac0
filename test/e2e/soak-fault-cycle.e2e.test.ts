// The soak's fast variant, as a test: one clean up/down cycle, one cycle whose
// kubelet is SIGKILLed mid-up, and a Ctrl-C mid-up, each followed by the
// leftovers check (src/cluster/local/leftovers.ts). Runs scripts/soak.ts as a
// user would and reads its soak.json.
import { afterAll, describe, expect } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { localProvider } from '../../src/cluster/local/index.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const available = await localProvider().isAvailable();
const it = testIf(
  all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }),
);
const ENV_NAME = e2eEnvName('soak');
const SOAK = fileURLToPath(new URL('../../scripts/soak.ts', import.meta.url));

interface Soak {
  seed: number;
  figures: Record<string, unknown>;
  cycles: Array<{
    index: number;
    fault?: { component: string; phase: string; step?: string; fired: boolean };
    up: { exitCode: number | null };
    leftovers: string[];
  }>;
  interrupts: Array<{ at: string; sent: boolean; exitCode: number | null; leftovers: string[] }>;
}

let dir: string | undefined;

describe('soak, fast variant', () => {
  afterAll(async () => {
    await localProvider().down(ENV_NAME);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('SOAK-FAULT-CYCLE: after a kubelet SIGKILLed mid-up and a Ctrl-C mid-up, nothing of the environment remains and the next up works', async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-soak-'));
    const r = await execa(
      process.execPath,
      [
        SOAK,
        '--name',
        ENV_NAME,
        '--cycles',
        '3',
        '--faults',
        '1',
        '--fault',
        'kubelet:up',
        '--runs',
        '0',
        '--interrupt-up',
        'start containerd',
        '--interrupt-run',
        'none',
        '--seed',
        '1',
        '--report-dir',
        dir,
      ],
      { reject: false, all: true },
    );
    const soak = JSON.parse(await readFile(join(dir, 'soak.json'), 'utf8')) as Soak;
    const fault = soak.cycles.find((c) => c.fault)!;
    expect(fault.fault).toMatchObject({ component: 'kubelet', phase: 'up', fired: true });
    // Every cycle, the faulty one included, ended clean; the cycle after the fault brought a cluster up.
    expect(soak.cycles.map((c) => c.leftovers)).toEqual([[], [], []]);
    expect(soak.cycles.find((c) => c.index === fault.index + 1)?.up.exitCode).toBe(0);
    expect(soak.interrupts).toEqual([
      expect.objectContaining({ at: 'start containerd', sent: true, exitCode: 130, leftovers: [] }),
    ]);
    expect({ exitCode: r.exitCode, output: r.exitCode === 0 ? '' : r.all }).toEqual({ exitCode: 0, output: '' });
  }, 600_000);
});
