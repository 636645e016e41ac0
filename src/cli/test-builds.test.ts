import { describe, expect, test } from '@jest/globals';
import { noopLogger } from '../core/logger.ts';
import { silentProgress } from '../core/progress.ts';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  LOCAL_LATE,
  LOCAL_SKEW,
  lateSuites,
  lateTestNeeds,
  lateTests,
  runBuilds,
  testBuilds,
  type TestBuild,
} from './test-builds.ts';

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
  const testFiles = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
      .filter((e) => e.isFile() && e.name.endsWith('.test.ts') && !e.parentPath.includes('node_modules'))
      .map((e) => join(e.parentPath, e.name).slice(ROOT.length + 1));
  // What each late build makes, as the test files that use it name it.
  const USES: Record<string, RegExp> = {
    kubelets: /\b(SKEW_KUBELET_VERSIONS?|versionSkewSuite)\b/,
    ecr: /\b(ECR_RECIPE|ECR_PLUGIN_VERSION|vendorEcrSuite)\b/,
    iam: /\bIAM_AUTHENTICATOR_(RECIPE|VERSION)\b/,
    acr: /\b(ACR_RECIPE|ACR_PLUGIN_VERSION|vendorAcrSuite)\b/,
    kubelogin: /\bKUBELOGIN_(RECIPE|VERSION)\b/,
    gke: /\bGKE_PLUGIN_(RECIPE|VERSION)\b/,
    // The install in credprov's own cache (a test of ensureAwsCli itself passes a cacheDir of its own).
    awscli: /ensureAwsCli\(\{ cachedOnly: true \}\)/,
    kubeletProbe: /ensureKubeletProbe\(\{ cachedOnly: true \}\)/,
    // The real etcd and kind CLI in credprov's cache, and a kind cluster end to end.
    kind: /\b(etcdRoot|builtEtcds)\b|defaultCacheDir\(\), 'kind'|from '\.\.\/\.\.\/src\/cluster\/kind\/index\.ts'/,
  };

  test('names test files that exist, and every one that uses what a late build makes', () => {
    const late = lateTests(testBuilds());
    expect(late.length).toBeGreaterThan(0);
    for (const f of late) expect({ f, exists: existsSync(join(ROOT, f)) }).toEqual({ f, exists: true });
    const all = ['src', 'suites', 'registry', 'fixtures', 'scripts', 'examples', 'test']
      .flatMap(testFiles)
      .filter((f) => f !== 'src/cli/test-builds.test.ts');
    for (const [what, uses] of Object.entries(USES)) {
      const users = all.filter((f) => uses.test(readFileSync(join(ROOT, f), 'utf8')));
      expect({ what, missing: users.filter((u) => !late.includes(u)) }).toEqual({ what, missing: [] });
    }
  });

  test('names every suite that uses what a late build makes (the e2e table runs those after it), and only suites', () => {
    const late = lateSuites(testBuilds());
    const suites = readdirSync(join(ROOT, 'suites'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(late.filter((s) => !suites.includes(s))).toEqual([]);
    const sourceOf = (suite: string) =>
      readdirSync(join(ROOT, 'suites', suite), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => readFileSync(join(ROOT, 'suites', suite, f), 'utf8'))
        .join('\n');
    for (const [what, uses] of Object.entries(USES)) {
      const users = suites.filter((s) => uses.test(sourceOf(s)));
      expect({ what, missing: users.filter((u) => !late.includes(u)) }).toEqual({ what, missing: [] });
    }
  });

  test("each suite that needs a late build runs in one local late file, and that file waits for all of the suite's builds", () => {
    const builds = testBuilds();
    for (const suite of lateSuites(builds)) {
      const files = [LOCAL_LATE, LOCAL_SKEW].filter((f) => lateSuites(builds, f).includes(suite));
      expect({ suite, files }).toEqual({ suite, files: [expect.any(String)] });
      const unnamed = builds.filter((b) => b.suites?.includes(suite) && !b.tests?.includes(files[0]!));
      expect({ suite, unnamed: unnamed.map((b) => b.name) }).toEqual({ suite, unnamed: [] });
    }
    // The older kubelets build last: their file holds only the suites that need them.
    expect(lateSuites(builds, LOCAL_SKEW)).toEqual(['kuberc-policy', 'version-skew']);
  });

  test('lateTestNeeds: every late file with the builds that name it', () => {
    const builds = testBuilds();
    const needs = lateTestNeeds(builds);
    expect([...needs.keys()].sort()).toEqual(lateTests(builds));
    expect(needs.get('src/differential/kubelet.test.ts')).toEqual(['kubelet probe']);
    expect(needs.get(LOCAL_SKEW)).toEqual(
      builds.filter((b) => b.name.startsWith('kubelet and kubectl') || /^kubelet \d/.test(b.name)).map((b) => b.name),
    );
    expect(needs.get(LOCAL_LATE)).not.toContain('kubelet and kubectl 1.36');
  });

  test('the early stage is what nearly every file needs: the kube binaries, containerd, the client-go probe', () => {
    expect(
      testBuilds()
        .filter((b) => b.stage === 'early')
        .map((b) => b.name),
    ).toEqual(['kube binaries', 'containerd', 'client-go probe']);
  });
});
