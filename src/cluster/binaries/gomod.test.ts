import { describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import { parseKubeGoMod, stagingVersion, toolsGo, wrapperGoMod } from './gomod.ts';

const fixture = readFileSync(new URL('./testdata/kubernetes-v1.37.1.go.mod', import.meta.url), 'utf8');
const moduleCacheCopy = '/root/go/pkg/mod/cache/download/k8s.io/kubernetes/@v/v1.37.1.mod';

describe('parseKubeGoMod', () => {
  test('reads the go line, godebug settings and every staging module of k8s.io/kubernetes v1.37.1', () => {
    const mod = parseKubeGoMod(fixture);
    expect(mod.go).toBe('1.26.0');
    expect(mod.godebug).toEqual(['default=go1.26']);
    expect(mod.staging).toHaveLength(33);
    expect(mod.staging).toEqual(
      expect.arrayContaining([
        'k8s.io/api',
        'k8s.io/kubelet',
        'k8s.io/cri-streaming',
        'k8s.io/externaljwt',
        'k8s.io/streaming',
      ]),
    );
    expect(mod.otherReplaces).toEqual([]);
    expect(mod.excludes).toEqual([]);
  });

  (existsSync(moduleCacheCopy) ? test : test.skip)(
    'gives the same answer for the full go.mod in the Go module cache',
    () => {
      const full = parseKubeGoMod(readFileSync(moduleCacheCopy, 'utf8'));
      expect(full).toEqual(parseKubeGoMod(fixture));
    },
  );

  test('keeps a non-staging replace and an exclude, single-line or in blocks', () => {
    const mod = parseKubeGoMod(`module k8s.io/kubernetes
go 1.25.0
godebug (
\tdefault=go1.25
\twinsymlink=0
)
replace k8s.io/api => ./staging/src/k8s.io/api // staging
replace github.com/x/y v1.0.0 => github.com/x/y v1.0.1
exclude github.com/bad/mod v0.1.0
`);
    expect(mod.godebug).toEqual(['default=go1.25', 'winsymlink=0']);
    expect(mod.staging).toEqual(['k8s.io/api']);
    expect(mod.otherReplaces).toEqual(['github.com/x/y v1.0.0 => github.com/x/y v1.0.1']);
    expect(mod.excludes).toEqual(['github.com/bad/mod v0.1.0']);
  });

  test('rejects a go.mod without staging replaces, naming the file', () => {
    expect(() => parseKubeGoMod('module example.com/x\ngo 1.26.0\n', 'x/go.mod')).toThrow(ConfigError);
    expect(() => parseKubeGoMod('module example.com/x\ngo 1.26.0\n', 'x/go.mod')).toThrow(
      /x\/go.mod replaces no staging module/,
    );
  });
});

describe('wrapperGoMod', () => {
  test('pins every staging module to v0.Y.Z and copies the go and godebug lines', () => {
    const text = wrapperGoMod(parseKubeGoMod(fixture), 'v1.37.1');
    expect(text).toContain('go 1.26.0\n');
    expect(text).toContain('godebug default=go1.26\n');
    expect(text).toContain('require k8s.io/kubernetes v1.37.1\n');
    expect(text).toContain('\tk8s.io/client-go => k8s.io/client-go v0.37.1\n');
    expect(text.match(/=> k8s\.io\/\S+ v0\.37\.1/g)).toHaveLength(33);
    expect(text).not.toContain('./staging');
  });

  test('is a go.mod the go command accepts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'credprov-gomod-'));
    try {
      writeFileSync(join(dir, 'go.mod'), wrapperGoMod(parseKubeGoMod(fixture), 'v1.37.1'));
      const r = await execa('go', ['mod', 'edit', '-json'], { cwd: dir, env: { GOFLAGS: '-mod=mod' } });
      const parsed = JSON.parse(String(r.stdout)) as {
        Go: string;
        Replace: unknown[];
        Require: Array<{ Path: string; Version: string }>;
        GoDebug: unknown[];
      };
      expect(parsed.Go).toBe('1.26.0');
      expect(parsed.Replace).toHaveLength(33);
      expect(parsed.Require).toEqual([{ Path: 'k8s.io/kubernetes', Version: 'v1.37.1' }]);
      expect(parsed.GoDebug).toEqual([{ Key: 'default', Value: 'go1.26' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('maps v1.Y.Z to the staging version v0.Y.Z and refuses a minor-only version', () => {
    expect(stagingVersion('v1.36.3')).toBe('v0.36.3');
    expect(stagingVersion('v1.38.0-alpha.0')).toBe('v0.38.0-alpha.0');
    expect(() => stagingVersion('v1.36')).toThrow(/not an exact Kubernetes release/);
  });

  test('tools.go blank-imports the commands under a build tag so go mod tidy keeps them', () => {
    const t = toolsGo(['k8s.io/kubernetes/cmd/kubelet']);
    expect(t.startsWith('//go:build tools\n')).toBe(true);
    expect(t).toContain('_ "k8s.io/kubernetes/cmd/kubelet"');
  });
});
