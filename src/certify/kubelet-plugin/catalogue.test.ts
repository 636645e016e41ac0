// Fault detection: every plugin in fixtures/plugins/catalogue.json is certified
// for real (processes, stdin/stdout, timeouts). The well-behaved ones must pass
// every check; each broken one must fail the check that names its defect.
// Whatever a plugin does, certifying it leaves no process and no temp dir behind.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProviderConfig } from '../../api/credentialprovider/config.ts';
import { parseGoDuration } from '../../core/duration.ts';
import { Redactor } from '../../core/redact.ts';
import { killMarked, markedAfter, newMarker, TEST_MARKER_ENV } from '../../testing/processes.ts';
import { KUBELET_PLUGIN_CHECKS } from './checks.ts';
import { certifyKubeletPlugin } from './certify.ts';
import { chooseImages } from './images.ts';

const ROOT = fileURLToPath(new URL('../../../fixtures/plugins/', import.meta.url));

interface Entry {
  name: string;
  config: string;
  expectFailure: string | null;
  description: string;
  timeout?: string;
  messageIncludes?: string;
}

const catalogue = JSON.parse(readFileSync(join(ROOT, 'catalogue.json'), 'utf8')) as { plugins: Entry[] };
const good = catalogue.plugins.filter((p) => p.expectFailure === null);
const broken = catalogue.plugins.filter((p) => p.expectFailure !== null);
// Generous: the machine is shared. The hang fixtures set a short one; broken-huge-stdout sets the kubelet's
// own 60s, since writing megabytes from several copies at once (the concurrency probe) is slow on a busy CI runner.
const DEFAULT_TIMEOUT_MS = 20_000;

// certify's temp dirs go here (os.tmpdir() reads TMPDIR on every call), so the test can see they are gone.
const realTmp = process.env.TMPDIR;
let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'credprov-catalogue-'));
  process.env.TMPDIR = tmp;
});
afterAll(() => {
  if (realTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = realTmp;
  rmSync(tmp, { recursive: true, force: true });
});

async function certify(entry: Entry) {
  const config = await loadProviderConfig(join(ROOT, entry.config));
  const provider = config.providers[0]!;
  const redactor = new Redactor();
  // Every process the plugin starts inherits the marker, setsid or not.
  const marker = newMarker();
  try {
    const result = await certifyKubeletPlugin({
      plugin: join(ROOT, entry.name),
      provider,
      images: chooseImages(provider, []),
      redactor,
      timeoutMs: entry.timeout ? parseGoDuration(entry.timeout)! : DEFAULT_TIMEOUT_MS,
      // The plugins keep the real TMPDIR (the fake's compile cache lives there).
      parentEnv: { ...process.env, TMPDIR: realTmp ?? '/tmp', [TEST_MARKER_ENV]: marker },
    });
    const failed = result.checks.filter((c) => c.status === 'failed');
    const leftBehind = {
      processes: await markedAfter(marker),
      tempEntries: readdirSync(tmp).filter((n) => n.startsWith('credprov-bin-')),
    };
    return { result, failed, redactor, leftBehind };
  } finally {
    killMarked(marker);
  }
}

const detected: string[] = [];

describe('certifying the plugin catalogue', () => {
  test('every expected check id exists', () => {
    const ids = KUBELET_PLUGIN_CHECKS.map((c) => c.id);
    for (const p of broken) expect(ids).toContain(p.expectFailure);
    expect(broken.length).toBeGreaterThanOrEqual(12);
  });

  test.each(good.map((p) => [p.name, p] as [string, Entry]))(
    '%s passes every check',
    async (_, entry) => {
      const { result, failed, leftBehind } = await certify(entry);
      expect(failed.map((c) => `${c.id}: ${c.message}`)).toEqual([]);
      expect(leftBehind).toEqual({ processes: [], tempEntries: [] });
      expect(result.checks.find((c) => c.id === 'KP-CONCURRENCY')!.status).toBe('passed');
      expect(result.metrics.latencyMs).toMatchObject({ count: expect.any(Number), p50Ms: expect.any(Number) });
    },
    180_000,
  );

  test.each(broken.map((p) => [p.name, p] as [string, Entry]))(
    '%s is caught by the check that names its defect, and only by it',
    async (_, entry) => {
      const { failed, redactor, leftBehind } = await certify(entry);
      // Exactly that check: a defect that trips unrelated checks would send a vendor the wrong way.
      expect(failed.map((c) => c.id)).toEqual([entry.expectFailure]);
      expect(leftBehind).toEqual({ processes: [], tempEntries: [] });
      const hit = failed[0]!;
      // One actionable line, with the invocation as evidence.
      expect(hit!.message).not.toContain('\n');
      if (entry.messageIncludes) expect(hit!.message).toContain(entry.messageIncludes);
      expect(hit!.evidence.length).toBeGreaterThan(0);
      expect(JSON.stringify(redactor.value(hit))).not.toMatch(/fake-password-for|exchanged-for/);
      detected.push(entry.name);
    },
    180_000,
  );

  test('reports the fault-detection count', () => {
    process.stderr.write(`certify kubelet-plugin caught ${detected.length} of ${broken.length} broken plugins\n`);
    expect(detected.length).toBe(broken.length);
  });
});
