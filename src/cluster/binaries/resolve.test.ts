import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, CredprovError, PrerequisiteError } from '../../core/errors.ts';
import { resolveKubeBinaries } from './resolve.ts';
import { KUBE_BINARIES } from './cache.ts';
import { goArch } from './source-download.ts';
import { fakeGo, fakeKubeBinary } from './testdata/fake-go.ts';
import { startMirror, type Mirror } from './testdata/mirror.ts';

const goModFile = fileURLToPath(new URL('./testdata/kubernetes-v1.37.1.go.mod', import.meta.url));
const UNREACHABLE = 'http://127.0.0.1:9'; // discard port: connection refused at once

let tmp: string;
let cacheDir: string;
let mirror: Mirror | undefined;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'credprov-resolve-'));
  cacheDir = join(tmp, 'cache');
});
afterEach(async () => {
  await mirror?.close();
  mirror = undefined;
  rmSync(tmp, { recursive: true, force: true });
});

async function fakeRelease(version: string): Promise<Record<string, string>> {
  const dir = join(tmp, `release-${version}`);
  await mkdir(dir, { recursive: true });
  const files: Record<string, string> = {};
  for (const name of KUBE_BINARIES) {
    files[name] = join(dir, name);
    await writeFile(files[name], fakeKubeBinary(name, version));
    await chmod(files[name], 0o755);
  }
  return files;
}

const entries = (dir: string) => {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
};

describe('resolveKubeBinaries: release download', () => {
  test('downloads from a mirror, verifies checksums and caches the version', async () => {
    mirror = await startMirror({ version: 'v1.37.1', arch: goArch(), files: await fakeRelease('v1.37.1') });
    const go = fakeGo({ known: ['v1.37.1'] });
    const r = await resolveKubeBinaries({ version: '1.37.1', cacheDir, downloadBaseUrl: mirror.baseUrl, go });
    expect(r).toMatchObject({
      version: 'v1.37.1',
      source: 'download',
      fromCache: false,
      dir: join(cacheDir, 'kube', 'v1.37.1'),
    });
    expect(r.manifest?.origin).toBe(mirror.baseUrl);
    expect(mirror.requests).toContain(`/v1.37.1/bin/linux/${goArch()}/kubelet.sha256`);
    expect(go.calls.filter((c) => c.startsWith('run'))).toEqual([]);
  });

  test('names: a kubelet-only request downloads the kubelet alone; a full request later completes the entry', async () => {
    mirror = await startMirror({ version: 'v1.37.1', arch: goArch(), files: await fakeRelease('v1.37.1') });
    const go = fakeGo({ known: ['v1.37.1'] });
    const skew = await resolveKubeBinaries({
      version: '1.37.1',
      names: ['kubelet'],
      cacheDir,
      downloadBaseUrl: mirror.baseUrl,
      go,
    });
    expect(skew.names).toEqual(['kubelet']);
    expect(entries(skew.dir)).toEqual(['kubelet', 'manifest.json']);
    expect(
      (
        await resolveKubeBinaries({
          version: '1.37.1',
          names: ['kubelet'],
          cacheDir,
          downloadBaseUrl: mirror.baseUrl,
          go,
        })
      ).fromCache,
    ).toBe(true);
    const full = await resolveKubeBinaries({ version: '1.37.1', cacheDir, downloadBaseUrl: mirror.baseUrl, go });
    expect(full).toMatchObject({ fromCache: false, names: [...KUBE_BINARIES] });
    expect(entries(full.dir)).toEqual([...KUBE_BINARIES, 'manifest.json'].sort());
    // Only the missing four were downloaded; the kubelet was kept.
    const kubeletPath = `/v1.37.1/bin/linux/${goArch()}/kubelet`;
    expect(mirror.requests.filter((r) => r === kubeletPath)).toHaveLength(1);
    expect(full.manifest?.additions?.[0]).toMatchObject({ names: KUBE_BINARIES.filter((n) => n !== 'kubelet') });
  });

  test('a wrong checksum is a clear error and nothing is cached', async () => {
    mirror = await startMirror({
      version: 'v1.37.1',
      arch: goArch(),
      files: await fakeRelease('v1.37.1'),
      wrongSum: ['kube-apiserver'],
    });
    const err = await resolveKubeBinaries({
      version: '1.37.1',
      cacheDir,
      downloadBaseUrl: mirror.baseUrl,
      go: fakeGo({ known: ['v1.37.1'] }),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CredprovError);
    expect((err as CredprovError).reason).toBe(
      `checksum mismatch for kube-apiserver v1.37.1 from ${mirror.baseUrl}/v1.37.1/bin/linux/${goArch()}/kube-apiserver`,
    );
    expect((err as CredprovError).detail).toMatch(/expected sha256 0{64}\ngot {6}sha256 [0-9a-f]{64}/);
    expect(entries(join(cacheDir, 'kube'))).toEqual([]);
  });

  test('a second call is served from the cache without touching mirror or proxy', async () => {
    mirror = await startMirror({ version: 'v1.37.1', arch: goArch(), files: await fakeRelease('v1.37.1') });
    await resolveKubeBinaries({
      version: '1.37.1',
      cacheDir,
      downloadBaseUrl: mirror.baseUrl,
      go: fakeGo({ known: ['v1.37.1'] }),
    });
    const before = mirror.requests.length;
    const go = fakeGo({ known: ['v1.37.1'] });
    const again = await resolveKubeBinaries({ version: 'v1.37.1', cacheDir, downloadBaseUrl: mirror.baseUrl, go });
    expect(again).toMatchObject({ source: 'download', fromCache: true });
    expect(mirror.requests.length).toBe(before);
    expect(go.calls).toEqual([]);
  });

  test('a mirror that stamps another version is refused', async () => {
    mirror = await startMirror({ version: 'v1.37.1', arch: goArch(), files: await fakeRelease('v1.37.0') });
    await expect(
      resolveKubeBinaries({ version: '1.37.1', cacheDir, downloadBaseUrl: mirror.baseUrl, go: fakeGo({ known: [] }) }),
    ).rejects.toThrow('the kubelet built or downloaded for v1.37.1 reports v1.37.0');
    expect(entries(join(cacheDir, 'kube'))).toEqual([]);
  });
});

describe('resolveKubeBinaries: Go module proxy build', () => {
  test('an unreachable download host falls through to a build, fast', async () => {
    const go = fakeGo({ known: ['v1.37.1'], goModFile });
    const t0 = Date.now();
    const r = await resolveKubeBinaries({ version: '1.37.1', cacheDir, downloadBaseUrl: UNREACHABLE, go });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(r).toMatchObject({ version: 'v1.37.1', source: 'build', fromCache: false });
    expect(r.manifest?.ldflags).toContain('k8s.io/component-base/version.gitVersion=v1.37.1');
    expect(go.calls).toEqual(expect.arrayContaining(['download k8s.io/kubernetes@v1.37.1', 'run mod', 'run build']));
    expect(entries(join(cacheDir, 'kube'))).toEqual(['v1.37.1']);
    expect(entries(r.dir)).toEqual([...KUBE_BINARIES, 'manifest.json'].sort()); // the wrapper module (.work) is gone
  });

  test('a mirror that accepts connections but never answers costs only the connect budget', async () => {
    const { createServer } = await import('node:net');
    const sockets: import('node:net').Socket[] = [];
    const silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const port = (silent.address() as import('node:net').AddressInfo).port;
      const t0 = Date.now();
      const r = await resolveKubeBinaries({
        version: '1.37.1',
        cacheDir,
        downloadBaseUrl: `http://127.0.0.1:${port}`,
        connectTimeoutMs: 300,
        go: fakeGo({ known: ['v1.37.1'], goModFile }),
      });
      expect(r.source).toBe('build');
      expect(Date.now() - t0).toBeLessThan(3000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  test('builds again only when the cache entry is gone', async () => {
    const go = fakeGo({ known: ['v1.37.1'], goModFile });
    await resolveKubeBinaries({ version: '1.37.1', cacheDir, sources: ['build'], go });
    await resolveKubeBinaries({ version: '1.37.1', cacheDir, sources: ['build'], go });
    expect(go.calls.filter((c) => c === 'run build')).toHaveLength(1);
    rmSync(join(cacheDir, 'kube', 'v1.37.1'), { recursive: true });
    await resolveKubeBinaries({ version: '1.37.1', cacheDir, sources: ['build'], go });
    expect(go.calls.filter((c) => c === 'run build')).toHaveLength(2);
  });

  test('kubeadm is not in the default set; asked for, it joins the cached entry without rebuilding the others', async () => {
    const go = fakeGo({ known: ['v1.37.1'], goModFile });
    const full = await resolveKubeBinaries({ version: '1.37.1', cacheDir, sources: ['build'], go });
    expect(entries(full.dir)).not.toContain('kubeadm');
    const kubeletInode = statSync(full.kubelet).ino;
    const withKubeadm = await resolveKubeBinaries({
      version: '1.37.1',
      names: ['kubeadm'],
      cacheDir,
      sources: ['build'],
      go,
    });
    expect(withKubeadm).toMatchObject({ fromCache: false, names: [...KUBE_BINARIES, 'kubeadm'] });
    expect(entries(full.dir)).toEqual([...KUBE_BINARIES, 'kubeadm', 'manifest.json'].sort());
    // Carried over by hard link, not built again: the same file.
    expect(statSync(full.kubelet).ino).toBe(kubeletInode);
    expect(withKubeadm.manifest).toMatchObject({
      durationMs: full.manifest!.durationMs,
      additions: [{ names: ['kubeadm'], source: 'build', origin: 'k8s.io/kubernetes@v1.37.1 h1:fake=' }],
    });
    expect(withKubeadm.manifest!.additions![0]!.ldflags).toContain('gitVersion=v1.37.1');
    // Both sets are now cache hits.
    go.calls.length = 0;
    await resolveKubeBinaries({ version: '1.37.1', cacheDir, sources: ['build'], go });
    await resolveKubeBinaries({ version: '1.37.1', names: ['kubeadm'], cacheDir, sources: ['build'], go });
    expect(go.calls).toEqual([]);
  });

  test('a kubeadm that reports another version is refused and the cached entry stays as it was', async () => {
    await resolveKubeBinaries({
      version: '1.37.1',
      cacheDir,
      sources: ['build'],
      go: fakeGo({ known: ['v1.37.1'], goModFile }),
    });
    const go = fakeGo({ known: ['v1.37.1'], goModFile, stampOverride: 'v1.37.0' });
    await expect(
      resolveKubeBinaries({ version: '1.37.1', names: ['kubeadm'], cacheDir, sources: ['build'], go }),
    ).rejects.toThrow('the kubeadm built or downloaded for v1.37.1 reports v1.37.0');
    expect(entries(join(cacheDir, 'kube', 'v1.37.1'))).toEqual([...KUBE_BINARIES, 'manifest.json'].sort());
  });

  test('a minor spec skips a patch whose source the proxy refuses and builds the next older one', async () => {
    const go = fakeGo({ known: ['v1.37.0', 'v1.37.1', 'v1.37.2'], failing: { 'v1.37.2': 'refused' }, goModFile });
    const notes: string[] = [];
    const r = await resolveKubeBinaries({
      version: '1.37',
      cacheDir,
      sources: ['build'],
      go,
      progress: { start: () => () => {}, note: (m) => notes.push(m) },
    });
    expect(r.version).toBe('v1.37.1');
    expect(notes[0]).toMatch(/^v1\.37\.2: the proxy refuses its source zip/);
    // The refusal is remembered: the next minor resolve asks the proxy for neither zip.
    go.calls.length = 0;
    expect((await resolveKubeBinaries({ version: '1.37', cacheDir, sources: ['build'], go })).fromCache).toBe(true);
    expect(go.calls.filter((c) => c.startsWith('download'))).toEqual([]);
  });

  test('a minor spec also skips a patch whose staging module the checksum database lacks (go mod tidy fails)', async () => {
    const go = fakeGo({
      known: ['v1.35.0', 'v1.35.1', 'v1.35.2', 'v1.35.3', 'v1.35.4', 'v1.35.5', 'v1.35.6'],
      tidyNoChecksum: ['v1.35.6'],
      goModFile,
    });
    const notes: string[] = [];
    const r = await resolveKubeBinaries({
      version: '1.35',
      names: ['kubelet'],
      cacheDir,
      sources: ['build'],
      go,
      progress: { start: () => () => {}, note: (m) => notes.push(m) },
    });
    expect(r.version).toBe('v1.35.5');
    expect(notes[0]).toMatch(/^v1\.35\.6: the checksum database has no entry for it/);
  });

  test('an exact version the proxy refuses is an error naming it and listing what is available', async () => {
    const go = fakeGo({
      listed: ['v1.35.4', 'v1.36.3'],
      known: ['v1.37.0', 'v1.37.1', 'v1.37.2'],
      failing: { 'v1.37.2': 'refused' },
      goModFile,
    });
    const err = (await resolveKubeBinaries({ version: '1.37.2', cacheDir, sources: ['build'], go }).catch(
      (e: unknown) => e,
    )) as PrerequisiteError;
    expect(err).toBeInstanceOf(PrerequisiteError);
    expect(err.reason).toBe(
      'k8s.io/kubernetes@v1.37.2 cannot be built from the Go module proxy: the proxy refuses its source zip (403, probably too large)',
    );
    expect(err.detail).toContain('older 1.37 releases the proxy knows: v1.37.1, v1.37.0');
    expect(err.detail).toContain('v1.36.3, v1.35.4');
    expect(err.hint).toContain('--kube-version v1.37.1');
  });

  test('a version unknown to the proxy and to the mirror is an error, not a hang', async () => {
    const go = fakeGo({ known: [], goModFile });
    await expect(
      resolveKubeBinaries({ version: '1.37.9', cacheDir, downloadBaseUrl: UNREACHABLE, go }),
    ).rejects.toThrow(/v1\.37\.9 cannot be built.*does not know this version/);
  });

  test('offline with a minor spec, the newest cached patch is used', async () => {
    const build = fakeGo({ known: ['v1.36.3'], goModFile });
    await resolveKubeBinaries({ version: '1.36.3', cacheDir, sources: ['build'], go: build });
    const offline = fakeGo({ known: [] });
    offline.listVersions = async () => {
      throw new Error('dial tcp: lookup proxy.golang.org: no such host');
    };
    const r = await resolveKubeBinaries({ version: '1.36', cacheDir, go: offline });
    expect(r).toMatchObject({ version: 'v1.36.3', fromCache: true });
  });
});

describe('resolveKubeBinaries: interrupted', () => {
  test('an aborted build leaves no staging dir, no lock and no cache entry', async () => {
    const go = fakeGo({ known: ['v1.37.1'], goModFile, hangBuild: true });
    const controller = new AbortController();
    const pending = resolveKubeBinaries({
      version: '1.37.1',
      cacheDir,
      sources: ['build'],
      go,
      signal: controller.signal,
    });
    while (!go.calls.includes('run build')) await new Promise((r) => setTimeout(r, 10));
    expect(entries(join(cacheDir, 'kube')).some((n) => n.startsWith('.staging-v1.37.1-'))).toBe(true);
    controller.abort();
    await expect(pending).rejects.toThrow('go build was cancelled');
    expect(entries(join(cacheDir, 'kube'))).toEqual([]);
  });
});

describe('resolveKubeBinaries: a directory the user names', () => {
  test('is used as is when every binary reports the version', async () => {
    const files = await fakeRelease('v1.36.3');
    const dir = join(tmp, 'release-v1.36.3');
    const r = await resolveKubeBinaries({ version: '1.36', dir, cacheDir });
    expect(r).toMatchObject({ version: 'v1.36.3', dir, kubelet: files.kubelet, source: 'dir' });
    expect(entries(join(cacheDir, 'kube'))).toEqual([]);
  });

  test('with another version is a config error that names the binary and both versions', async () => {
    await fakeRelease('v1.36.3');
    const dir = join(tmp, 'release-v1.36.3');
    const err = (await resolveKubeBinaries({ version: '1.37.1', dir, cacheDir }).catch(
      (e: unknown) => e,
    )) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.reason).toBe(`--dir ${dir}: kubelet reports v1.36.3, not v1.37.1`);
  });

  test('without a kubelet is a config error saying what to put there', async () => {
    const dir = join(tmp, 'empty');
    await mkdir(dir);
    await expect(resolveKubeBinaries({ version: '1.37.1', dir, cacheDir })).rejects.toThrow(
      `--dir ${dir}: kubelet is missing or does not run`,
    );
  });
});
