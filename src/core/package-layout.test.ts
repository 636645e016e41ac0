import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CREDPROV_VERSION, packageRoot, runnableModule } from './package-layout.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('package layout', () => {
  test('a module named as a .ts source resolves to itself from a source caller', () => {
    expect(
      runnableModule('../../fixtures/fake-credential-provider/main.ts', 'file:///pkg/src/plugin/fake-provider.ts'),
    ).toBe('/pkg/fixtures/fake-credential-provider/main.ts');
  });

  test('and to its compiled .js sibling from a compiled caller', () => {
    expect(
      runnableModule('../../fixtures/fake-credential-provider/main.ts', 'file:///pkg/dist/src/plugin/fake-provider.js'),
    ).toBe('/pkg/dist/fixtures/fake-credential-provider/main.js');
    expect(runnableModule('./pause/main.go', 'file:///pkg/dist/registry/image/test-images.js')).toBe(
      '/pkg/dist/registry/image/pause/main.go',
    );
  });

  test('the package root is the checkout, and the version is its package.json version', () => {
    expect(packageRoot()).toBe(ROOT.replace(/\/$/, ''));
    expect(CREDPROV_VERSION).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  });

  test('no credprov package.json above a directory means no root', () => {
    expect(packageRoot('/proc/self/x')).toBeUndefined();
  });
});
