// The awscli cache entry: usable only with a manifest of its version, never
// half-installed; a failed install says what to do and leaves nothing behind.
import { describe, expect, test } from '@jest/globals';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PrerequisiteError } from '../../core/errors.ts';
import { useTempDir } from '../../testing/tmp.ts';
import { AWS_CLI_VERSION, awsCliDir, ensureAwsCli } from './aws-cli.ts';

const root = useTempDir('credprov-awscli-');
let n = 0;
/** A cache dir of the test's own. */
async function freshCache(): Promise<string> {
  const dir = join(root(), `cache-${++n}`);
  await mkdir(dir);
  return dir;
}

describe('ensureAwsCli', () => {
  test('an empty cache has no install, and cachedOnly installs nothing', async () => {
    const cacheDir = await freshCache();
    expect(await ensureAwsCli({ cacheDir, cachedOnly: true })).toBeUndefined();
    expect(await readdir(cacheDir)).toEqual([]);
  });

  test('an entry is usable only with a manifest of its own version', async () => {
    const cacheDir = await freshCache();
    const dir = awsCliDir(AWS_CLI_VERSION, cacheDir);
    await mkdir(join(dir, 'venv', 'bin'), { recursive: true });
    // A venv without a manifest is an install that did not finish.
    expect(await ensureAwsCli({ cacheDir, cachedOnly: true })).toBeUndefined();
    const manifest = { version: '1.0.0', python: 'Python 3', packages: [], installedAt: '', installSeconds: 1 };
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
    expect(await ensureAwsCli({ cacheDir, cachedOnly: true })).toBeUndefined();
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, version: AWS_CLI_VERSION }));
    expect(await ensureAwsCli({ cacheDir, cachedOnly: true })).toMatchObject({
      version: AWS_CLI_VERSION,
      path: join(dir, 'venv', 'bin', 'aws'),
      fromCache: true,
    });
  });

  test('a venv that cannot be made is a prerequisite error with the package to install, and leaves no entry', async () => {
    const cacheDir = await freshCache();
    const err = await ensureAwsCli({ cacheDir, python: '/bin/false' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PrerequisiteError);
    expect((err as PrerequisiteError).message).toMatch(/-m venv .* failed/);
    expect((err as PrerequisiteError).hint).toMatch(/python3-venv/);
    expect(await readdir(join(cacheDir, 'plugins', 'aws-cli'))).toEqual([]);
  });
});
