import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { pidExists } from './pids.ts';

describe('tied child', () => {
  it('dies with its parent, even when the parent is SIGKILLed', async () => {
    // A parent that starts a tied `sleep` and prints its pid, then waits.
    const parent = spawn(
      process.execPath,
      [
        '--experimental-strip-types',
        '--no-warnings',
        '--input-type=module',
        '-e',
        `
      import { spawnTied } from ${JSON.stringify(new URL('./tied-child.ts', import.meta.url).href)};
      const c = spawnTied('/bin/sleep', ['600'], { stdio: 'ignore' });
      console.log(c.pid);
      setInterval(() => {}, 1000);
    `,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
      parent.once('exit', (code) => reject(new Error(`parent exited ${code}`)));
    });
    expect(pidExists(pid)).toBe(true);
    parent.kill('SIGKILL');
    const deadline = Date.now() + 5000;
    while (pidExists(pid) && Date.now() < deadline) await sleep(50);
    expect(pidExists(pid)).toBe(false);
  });
});
