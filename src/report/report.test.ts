import { describe, expect, test } from '@jest/globals';
import { Redactor } from '../core/redact.ts';
import { fail, pass, runCheck } from './checks.ts';
import { exitCodeFor, summarize, type RunReport } from './model.ts';
import { toJson } from './json.ts';
import { toJunit } from './junit.ts';
import { toMarkdown } from './markdown.ts';

const check = (id: string, level: 'MUST' | 'SHOULD' = 'MUST') => ({
  id,
  title: `${id} holds`,
  level,
  source: 'KEP-2133',
});

async function sample(): Promise<RunReport> {
  const checks = [
    await runCheck(check('a'), () => pass('fine')),
    await runCheck(check('b', 'SHOULD'), () =>
      fail('nope <&>', [
        { kind: 'data', label: 'response', data: { auth: { 'r.io': { username: 'u', password: 'hunter22' } } } },
      ]),
    ),
    await runCheck(check('c'), () => {
      throw new Error('boom');
    }),
  ];
  return {
    tool: { name: 'credprov', version: '0', command: 'certify kubelet-plugin' },
    subject: {},
    checks,
    summary: summarize(checks),
    startedAt: new Date(0).toISOString(),
    durationMs: 5,
  };
}

describe('results model', () => {
  test('a check that throws is a harness failure, never a pass', async () => {
    const r = await sample();
    expect(r.checks[2]).toMatchObject({ status: 'failed', cause: 'harness' });
    expect(r.summary).toEqual({ passed: 1, failed: 2, skipped: 0 });
  });
  test('a SHOULD failure alone does not fail the run; a harness failure alone is a harness error (3); a MUST failure is 1', async () => {
    const r = await sample();
    expect(exitCodeFor({ checks: r.checks.slice(0, 2) })).toBe(0);
    expect(exitCodeFor(r)).toBe(3);
    const mustFailed = await runCheck(check('d'), () => fail('the plugin broke it'));
    expect(exitCodeFor({ checks: [...r.checks, mustFailed] })).toBe(1);
  });
  test('writers render the same model and redaction removes passwords', async () => {
    const r = new Redactor().value(await sample());
    const json = JSON.parse(toJson(r));
    expect(json.summary).toEqual({ passed: 1, failed: 2, skipped: 0 });
    expect(JSON.stringify(json)).not.toContain('hunter22');
    const xml = toJunit(r);
    expect(xml).toContain('<failure message="nope &lt;&amp;&gt;"');
    expect(xml).toContain('<error message="harness error: boom"');
    expect(toMarkdown(r)).toContain('| FAIL | SHOULD | b |');
  });
  test('credprov run: a JUnit testsuite per suite, and report.json and report.md carry suites and comparisons', async () => {
    const base = await sample();
    const checks = base.checks.map((c, i) => ({
      ...c,
      suite: i === 0 ? 'matching' : 'cache',
      ...(i === 0 ? { comparison: { model: 'oracle', because: 'b', predicted: 'x', observed: 'x', agree: true } } : {}),
    }));
    const r: RunReport = {
      ...base,
      checks,
      suites: [
        { name: 'matching', summary: 'm', durationMs: 1500 },
        { name: 'cache', summary: 'c', durationMs: 2500 },
      ],
    };
    const xml = toJunit(r);
    expect(xml).toContain('<testsuite name="matching" tests="1" failures="0" errors="0" skipped="0"');
    expect(xml).toContain('<testsuite name="cache" tests="2" failures="1" errors="1" skipped="0"');
    expect(xml).toContain('classname="credprov.cache"');
    const json = JSON.parse(toJson(r));
    expect(json.suites.map((s: { name: string }) => s.name)).toEqual(['matching', 'cache']);
    expect(json.checks[0]).toMatchObject({ suite: 'matching', comparison: { agree: true } });
    const md = toMarkdown(r);
    expect(md).toContain('| matching | 1 | 1 | 0 | 0 | 1.5 s |');
    expect(md).toContain('## Suite cache (2.5 s)');
  });
});
