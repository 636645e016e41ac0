import { describe, expect, test } from '@jest/globals';
import { noopLogger } from '../core/logger.ts';
import { silentProgress } from '../core/progress.ts';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lateTests, runBuilds, testBuilds, type TestBuild } from './test-builds.ts';

const ctx = { progress: silentProgress, log: noopLogger };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function fake(name: string, ms: number, log: string[], o: { after?: string[]; fail?: boolean } = {}): TestBuild {
  return {
    name,
    for: 'a test',
    stage: 'early',
    ...(o.after ? { after: o.after } : {}),
    async run() {
      log.push(`+${name}`);
      await sleep(ms);
      log.push(`-${name}`);
      if (o.fail) throw new Error(`${name} broke`);
    },
  };
}

describe('runBuilds', () => {
  test('at most `concurrency` at a time; a build waits for those it comes after', async () => {
    const log: string[] = [];
    await runBuilds(
      [
        fake('kube', 40, log),
        fake('containerd', 10, log),
        fake('probe', 10, log, { after: ['kube'] }),
        fake('x', 10, log),
      ],
      ctx,
      2,
    );
    // containerd and x fill the second slot while kube builds; probe starts only once kube ended.
    expect(log).toEqual(['+kube', '+containerd', '-containerd', '+x', '-x', '-kube', '+probe', '-probe']);
  });

  test('a failed build does not stop the others, and every build reports its times', async () => {
    const log: string[] = [];
    const ends: string[] = [];
    const t = await runBuilds(
      [fake('a', 5, log, { fail: true }), fake('b', 5, log, { after: ['a'] }), fake('c', 5, log)],
      ctx,
      1,
      (x) => ends.push(x.name),
    );
    expect(t.map((x) => [x.name, x.error])).toEqual([
      ['a', 'a broke'],
      ['b', undefined],
      ['c', undefined],
    ]);
    expect(ends.sort()).toEqual(['a', 'b', 'c']);
    expect(t.every((x) => x.endedAt >= x.startedAt)).toBe(true);
  });

  test('interrupted: nothing more starts, and what never started says so', async () => {
    const log: string[] = [];
    const abort = new AbortController();
    const t = await runBuilds(
      [{ ...fake('a', 5, log), run: async () => void abort.abort() }, fake('b', 5, log)],
      { ...ctx, signal: abort.signal },
      1,
    );
    expect(t.map((x) => [x.name, x.error])).toEqual([
      ['a', undefined],
      ['b', 'not started: interrupted'],
    ]);
    expect(log).toEqual([]);
  });
});

describe('testBuilds', () => {
  test('one list: the kube binaries first, every build named once, and what a build comes after is in the list', () => {
    const builds = testBuilds();
    const names = builds.map((b) => b.name);
    expect(names[0]).toBe('kube binaries');
    expect(new Set(names).size).toBe(names.length);
    for (const b of builds) for (const a of b.after ?? []) expect(names).toContain(a);
    expect(names).toEqual(
      expect.arrayContaining([
        'containerd',
        'client-go probe',
        'ecr-credential-provider',
        'kubeadm',
        'etcd',
        'kind CLI',
      ]),
    );
  });
});

describe('the late stage', () => {
  const ROOT = join(import.meta.dirname, '..', '..');
  test('names end-to-end files that exist, and every one that uses a late build', () => {
    const late = lateTests(testBuilds());
    expect(late.length).toBeGreaterThan(0);
    for (const f of late) expect(existsSync(join(ROOT, f))).toBe(true);
    // What a late build makes, as the files that use it name it.
    const usesLate =
      /\b(SKEW_KUBELET_VERSIONS?|versionSkewSuite|KUBELOGIN_[A-Z]+|GKE_PLUGIN_[A-Z]+|AWS_CLI_VERSION|ensureAwsCli)\b/;
    const users = readdirSync(join(ROOT, 'test', 'e2e'))
      .map((f) => `test/e2e/${f}`)
      .filter((f) => usesLate.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(late).toEqual(expect.arrayContaining(users));
  });

  test('no unit test needs a late build: those run beside them', () => {
    const late = testBuilds().filter((b) => b.stage === 'late');
    expect(late.every((b) => (b.tests ?? []).every((t) => t.startsWith('test/e2e/')))).toBe(true);
  });
});
