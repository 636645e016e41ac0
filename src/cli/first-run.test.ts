// A first run from a checkout without node_modules says what to do, instead of
// "Cannot find package 'yaml' … (an unexpected harness error)".
import { describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { useTempDir } from '../testing/tmp.ts';

const tmp = useTempDir('credprov-first-run-');

/** bin/credprov.js and package.json in a directory with no node_modules; `checkout` adds the sources' entry. */
async function bare(name: string, checkout: boolean): Promise<string> {
  const root = join(tmp(), name);
  await mkdir(join(root, 'bin'), { recursive: true });
  await copyFile(resolve('bin/credprov.js'), join(root, 'bin/credprov.js'));
  await copyFile(resolve('package.json'), join(root, 'package.json'));
  if (checkout) {
    await mkdir(join(root, 'src/cli'), { recursive: true });
    await writeFile(join(root, 'src/cli/main.ts'), 'throw new Error("never imported without node_modules");\n');
  }
  return root;
}

const run = (root: string, ...args: string[]) =>
  execa(process.execPath, [join(root, 'bin/credprov.js'), ...args], { reject: false, cwd: root });

describe('a first run without node_modules', () => {
  test('from a checkout: says to run npm ci or scripts/setup.sh, exit 3', async () => {
    const root = await bare('checkout', true);
    const r = await run(root, 'certify', 'kubelet-plugin', '--help');
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toBe(
      `error: credprov's node modules are not installed (@kubernetes/client-node, bcryptjs, execa, jose, testcontainers, yaml are missing)\n  hint: run npm ci in ${root} (or scripts/setup.sh, which also installs a pinned Node), then run credprov again`,
    );
    expect(r.stderr).not.toMatch(/Cannot find package|harness error/);
  });

  test('with --json: one JSON document on stdout saying the same', async () => {
    const r = await run(await bare('json', true), '--json', 'match', 'reg.io', 'reg.io/app');
    expect(r.exitCode).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({
      error: expect.stringContaining('node modules are not installed'),
      exitCode: 3,
    });
  });

  test('installed as a package (no sources): says to reinstall', async () => {
    const r = await run(await bare('package', false), '--help');
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('hint: reinstall credprov');
  });
});
