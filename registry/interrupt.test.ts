// Ctrl-C while a suite prepares: the registries this process started, and
// one still starting, are stopped with their dirs before the process exits,
// and none may start afterwards (the exit alone only killed their processes,
// leaving /etc/hosts lines and temp dirs behind).
import { describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { Auth } from './auth.ts';
import { DEFAULT_BINARY, processProvider } from './process.ts';
import { stopInProcessRegistries } from './started.ts';
import { isOurs } from '../src/core/pids.ts';
import { readState } from './state.ts';

describe('stopInProcessRegistries', () => {
  (existsSync(DEFAULT_BINARY) ? test : test.skip)(
    'stops running and starting registries with their dirs, then refuses new ones',
    async () => {
      const running = await processProvider().start({ name: 'int-running', auth: Auth.none(), hosts: false });
      const state = (await readState(running.dir))!;
      // Interrupted once it has begun (its progress line is out), before it is up.
      let begun!: () => void;
      const begins = new Promise<void>((r) => (begun = r));
      const progress = { start: () => (begun(), () => {}), note: () => {} };
      const startingOne = processProvider().start({ name: 'int-starting', auth: Auth.none(), hosts: false, progress });
      await begins;
      await stopInProcessRegistries();
      const late = await startingOne;
      expect(existsSync(running.dir)).toBe(false);
      expect(existsSync(late.dir)).toBe(false);
      expect(await isOurs(state.processes[0]!)).toBe(false);
      await expect(processProvider().start({ name: 'int-after', auth: Auth.none(), hosts: false })).rejects.toThrow(
        /interrupted and is cleaning up/,
      );
    },
    30_000,
  );
});
