import { describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_BINARY } from '../../registry/index.ts';
import { memoryLogger } from '../core/logger.ts';
import { silentProgress } from '../core/progress.ts';
import { Redactor } from '../core/redact.ts';
import { useTempDir } from '../testing/tmp.ts';
import type { SuiteSetup } from './suite.ts';
import { startTokenRegistry } from './token-registry.ts';

const tmp = useTempDir('credprov-token-registry-');
// A real registry process (and an /etc/hosts line for its name): root, with the distribution binary.
const live = existsSync(DEFAULT_BINARY) && process.getuid?.() === 0;

describe('startTokenRegistry', () => {
  (live ? test : test.skip)(
    "the image under every repository; after the suite it is stopped and its logs are in the suite's artifacts, redacted, not on the console",
    async () => {
      const cleanups: Array<() => Promise<void> | void> = [];
      const console: string[] = [];
      const redactor = new Redactor();
      const ctx = {
        log: memoryLogger(console),
        progress: silentProgress,
        artifactsDir: tmp(),
        redactor,
        defer: (c: () => Promise<void> | void) => cleanups.push(c),
      } as unknown as SuiteSetup;
      const registry = await startTokenRegistry(ctx, `unit-tokreg-${process.pid}`, {
        repositories: ['team-a/app', 'team-b/app'],
        marker: 'unit',
        logsAs: 'exchange',
      });
      try {
        const admin = registry.client(registry.admin);
        expect(await admin.manifestExists('team-a/app', 'v1')).toBe(true);
        expect(await admin.manifestExists('team-b/app', 'v1')).toBe(true);
        redactor.add(registry.admin.password);
      } finally {
        for (const c of cleanups.reverse()) await c();
      }
      expect(cleanups).toHaveLength(1);
      const registryLog = await readFile(join(tmp(), 'exchange-registry.log'), 'utf8');
      expect(registryLog.length).toBeGreaterThan(0);
      expect(registryLog).not.toContain(registry.admin.password);
      expect(existsSync(join(tmp(), 'exchange-token-server.log'))).toBe(true);
      expect(console.filter((l) => !/warn|error/i.test(l))).toEqual([]);
    },
    60_000,
  );
});
