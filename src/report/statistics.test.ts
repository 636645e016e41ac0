import { describe, expect, test } from '@jest/globals';
import { toHtml } from './html.ts';
import { toMarkdown } from './markdown.ts';
import type { RunReport } from './model.ts';
import { latencyOf } from './statistics.ts';

// Twelve durations as a certify run records them (ms).
const SAMPLES = [412.3, 455.1, 501.9, 540.2, 588.8, 629.5, 782.0, 790.4, 801.7, 845.0, 901.2, 1203.6];

describe('latencyOf', () => {
  test('is the nearest rank: the 6th of 12 is p50, the 12th p95', () => {
    expect(latencyOf(SAMPLES)).toEqual({ count: 12, p50Ms: 629.5, p95Ms: 1203.6, maxMs: 1203.6 });
    expect(latencyOf([3, 1, 2])).toEqual({ count: 3, p50Ms: 2, p95Ms: 3, maxMs: 3 });
    expect(latencyOf([])).toEqual({ count: 0 });
  });

  test('report.json, report.md and report.html state the same p50 and p95 for the same samples', () => {
    const latencyMs = latencyOf(SAMPLES);
    const report: RunReport = {
      tool: { name: 'credprov', version: '0', command: 'certify kubelet-plugin' },
      subject: {},
      checks: [],
      summary: { passed: 0, failed: 0, skipped: 0 },
      metrics: { latencyMs, durationsMs: SAMPLES },
      startedAt: '2026-11-29T00:00:00Z',
      durationMs: 1,
    };
    expect(toMarkdown(report)).toContain('"p50Ms": 629.5');
    const html = toHtml(report);
    expect(html).toContain('p50 629.5 ms · p95 1203.6 ms · max 1203.6 ms');
    expect(html).not.toContain('782.0 ms ·');
  });
});
