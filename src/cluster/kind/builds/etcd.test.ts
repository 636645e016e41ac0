import { afterAll, describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { cacheDir as defaultCacheDir } from '../../../core/paths.ts';
import { silentProgress } from '../../../core/progress.ts';
import { testIf } from '../../../testing/prerequisites.ts';
import { SUPPORTED_MINORS } from '../../../versions/table.ts';
import { readManifest } from '../../binaries/cache.ts';
import {
  ensureEtcd,
  etcdOfKubeadm,
  etcdReportedVersion,
  etcdTagInImageList,
  etcdVersionForKube,
  etcdWrapperGoMod,
  moduleVersion,
} from './etcd.ts';
import { toolGo } from './testdata/tool-go.ts';

const tmp = mkdtempSync(join(tmpdir(), 'credprov-etcd-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('etcd for a kubeadm release', () => {
  test("is the release kubeadm's own table names for the minor", () => {
    expect(etcdVersionForKube('v1.37.1')).toEqual({ version: 'v3.7.0', imageTag: '3.7.0-0' });
    expect(etcdVersionForKube('1.36')).toEqual({ version: 'v3.6.8', imageTag: '3.6.8-0' });
    expect(etcdVersionForKube('1.35.4')).toEqual({ version: 'v3.6.6', imageTag: '3.6.6-0' });
    expect(etcdVersionForKube('1.34')).toEqual({ version: 'v3.6.5', imageTag: '3.6.5-0' });
    for (const minor of SUPPORTED_MINORS) expect(etcdVersionForKube(`1.${minor}`).version).toMatch(/^v3\.\d+\.\d+$/);
    expect(() => etcdVersionForKube('1.30')).toThrow('outside the versions credprov models');
  });

  test("kubeadm's image list names the etcd tag", () => {
    const list = [
      'registry.k8s.io/kube-apiserver:v1.37.1',
      'registry.k8s.io/pause:3.10.2',
      'registry.k8s.io/etcd:3.7.0-0',
    ];
    expect(etcdTagInImageList(`${list.join('\n')}\n`)).toBe('3.7.0-0');
    expect(etcdTagInImageList('registry.k8s.io/etcd-operator:1\n')).toBeUndefined();
  });

  test('module versions come from image tags, plain versions or module versions alike', () => {
    expect(['3.7.0-0', '3.7.0', 'v3.7.0'].map(moduleVersion)).toEqual(['v3.7.0', 'v3.7.0', 'v3.7.0']);
    expect(() => moduleVersion('latest')).toThrow("'latest' is not an etcd version");
  });

  test("the wrapper go.mod keeps the server's go line and godebug settings, not its toolchain or ../ replaces", () => {
    const server = [
      'module go.etcd.io/etcd/server/v3',
      '',
      'go 1.26',
      '',
      'toolchain go1.26.5',
      '',
      'godebug (',
      '\tx509negativeserial=1',
      ')',
      '',
      'require go.etcd.io/bbolt v1.5.0',
      '',
      'replace (',
      '\tgo.etcd.io/etcd/api/v3 => ../api',
      ')',
    ].join('\n');
    expect(etcdWrapperGoMod(server, 'v3.7.0')).toBe(
      [
        'module credprov.local/etcdbuild',
        '',
        'go 1.26',
        '',
        'godebug x509negativeserial=1',
        '',
        'require go.etcd.io/etcd/server/v3 v3.7.0',
        '',
      ].join('\n'),
    );
    expect(() => etcdWrapperGoMod('module x\n', 'v3.7.0')).toThrow("has no 'go' directive");
  });
});

describe('ensureEtcd', () => {
  test('builds once through the wrapper module, records where it came from, then answers from the cache', async () => {
    const cacheDir = join(tmp, 'cache-a');
    const go = toolGo({ tmp });
    const r = await ensureEtcd({ version: '3.7.0-0', cacheDir, progress: silentProgress, go });
    expect(r).toEqual({ etcd: join(cacheDir, 'etcd', 'v3.7.0', 'etcd'), version: 'v3.7.0' });
    expect(go.calls).toEqual([
      'download go.etcd.io/etcd/server/v3@v3.7.0',
      'run mod tidy',
      expect.stringMatching(
        /^run build -trimpath -ldflags -s -w -X go\.etcd\.io\/etcd\/api\/v3\/version\.GitSHA=go-module-proxy -o \S+\/\.staging-v3\.7\.0-\S+\/etcd \.$/,
      ),
    ]);
    const dir = join(cacheDir, 'etcd', 'v3.7.0');
    expect(readdirSync(dir).sort()).toEqual(['build.log', 'etcd', 'manifest.json']); // the wrapper (.work) is gone
    expect(await readManifest(dir)).toMatchObject({
      version: 'v3.7.0',
      source: 'build',
      origin: 'go.etcd.io/etcd/server/v3@v3.7.0 h1:fake=',
      goVersion: 'go1.26.8',
      binaries: { etcd: { size: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } },
    });
    go.calls.length = 0;
    expect(await ensureEtcd({ version: 'v3.7.0', cacheDir, progress: silentProgress, go })).toEqual(r);
    expect(go.calls).toEqual([]);
  });

  test('an etcd that reports another version is refused and nothing is cached', async () => {
    const cacheDir = join(tmp, 'cache-b');
    await expect(
      ensureEtcd({ version: 'v3.7.0', cacheDir, progress: silentProgress, go: toolGo({ tmp, reports: '3.6.8' }) }),
    ).rejects.toThrow('etcd built for v3.7.0 reports v3.6.8');
    expect(readdirSync(join(cacheDir, 'etcd'))).toEqual([]);
  });

  test('an unreachable proxy is an error that says so, and nothing is cached', async () => {
    const cacheDir = join(tmp, 'cache-c');
    const err = await ensureEtcd({
      version: 'v3.7.0',
      cacheDir,
      progress: silentProgress,
      go: toolGo({ tmp, failDownload: true }),
    }).catch((e: unknown) => e as Error & { hint?: string });
    expect(err).toMatchObject({
      message: expect.stringContaining('cannot fetch go.etcd.io/etcd/server/v3@v3.7.0 from the Go module proxy'),
    });
    expect(readdirSync(join(cacheDir, 'etcd'))).toEqual([]);
  });
});

// The real build (credprov binaries ensure --for kind): skipped where it has not been made, CI included,
// since the test command does not build it.
const etcdRoot = join(defaultCacheDir(), 'etcd');
// kubeadm 1.34+ gives etcd these 3.6 flags; a 3.5 build (kubeadm 1.33) gets other ones and is not started here.
const builtEtcds = (existsSync(etcdRoot) ? readdirSync(etcdRoot) : []).filter(
  (v) => /^v3\.([6-9]|\d\d)\.\d+$/.test(v) && existsSync(join(etcdRoot, v, 'manifest.json')),
);
const maybe = testIf(
  builtEtcds.length > 0
    ? { ok: true }
    : { ok: false, reason: 'no etcd 3.6+ is cached (credprov binaries ensure --for kind)' },
  { optional: true },
);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe(`cached etcd builds (${builtEtcds.join(', ') || 'none'})`, () => {
  // With none built, one skipped test says so.
  for (const wanted of builtEtcds.length > 0 ? builtEtcds : [etcdVersionForKube('1.37').version])
    maybe(
      `${wanted} reports its version and serves /health on loopback with the flags kubeadm 1.34+ gives it`,
      async () => {
        const realEtcd = join(etcdRoot, wanted, 'etcd');
        expect(await etcdReportedVersion(realEtcd)).toBe(wanted);
        const [client, peer] = [await freePort(), await freePort()];
        const dataDir = join(tmp, 'etcd-data');
        const etcd = execa(
          realEtcd,
          [
            '--feature-gates=InitialCorruptCheck=true',
            '--watch-progress-notify-interval=5s',
            `--data-dir=${dataDir}`,
            `--listen-client-urls=http://127.0.0.1:${client}`,
            `--advertise-client-urls=http://127.0.0.1:${client}`,
            `--listen-peer-urls=http://127.0.0.1:${peer}`,
            `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
            `--initial-cluster=default=http://127.0.0.1:${peer}`,
          ],
          { reject: false, all: true },
        );
        let health: unknown;
        let out: Awaited<typeof etcd>;
        try {
          for (const deadline = Date.now() + 5000; Date.now() < deadline && health === undefined;) {
            health = await fetch(`http://127.0.0.1:${client}/health`)
              .then((r) => r.json())
              .catch(() => new Promise((r) => setTimeout(() => r(undefined), 100)));
          }
        } finally {
          etcd.kill('SIGTERM');
          out = await etcd;
          rmSync(dataDir, { recursive: true, force: true });
        }
        // A flag etcd refused would have ended it before /health; its output says which.
        if (out.exitCode !== null && out.signal !== 'SIGTERM' && out.exitCode !== 0) throw new Error(String(out.all));
        expect(health).toEqual({ health: 'true', reason: '' });
      },
      15_000,
    );
});

// The table's prediction against kubeadm's own answer, for every kubeadm built here (binaries ensure --for kind).
const kubeRoot = join(defaultCacheDir(), 'kube');
const kubeadms = (existsSync(kubeRoot) ? readdirSync(kubeRoot) : [])
  .filter((v) => /^v1\.\d+\.\d+$/.test(v) && existsSync(join(kubeRoot, v, 'kubeadm')))
  .filter((v) => SUPPORTED_MINORS.includes(Number(v.split('.')[1])));
const withKubeadm = testIf(
  kubeadms.length > 0 ? { ok: true } : { ok: false, reason: 'no kubeadm is cached (binaries ensure --for kind)' },
  { optional: true },
);

describe(`the version table's etcd tags against the kubeadm builds here (${kubeadms.join(', ') || 'none'})`, () => {
  withKubeadm(
    'each kubeadm names the etcd tag the table predicts for its minor',
    async () => {
      for (const v of kubeadms)
        expect({ v, ...(await etcdOfKubeadm(join(kubeRoot, v, 'kubeadm'), v)) }).toEqual({
          v,
          ...etcdVersionForKube(v),
        });
    },
    30_000,
  );
});
