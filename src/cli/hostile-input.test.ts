// Files a user names that are not what they seem: a FIFO, a missing file, a
// YAML alias bomb, 20 MB of comments. Every command that reads one answers at
// once with one line naming the file, exit 2 (and JSON where it has --json).
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { constants, openSync, closeSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSpecFile } from '../api/spec/load.ts';
import { ConfigError } from '../core/errors.ts';
import { noopLogger } from '../core/logger.ts';
import { runCli, type CliResult } from '../testing/cli.ts';
import { useTempDir } from '../testing/tmp.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PLUGINS = join(ROOT, 'fixtures/plugins');
const dir = useTempDir('credprov-hostile-input-');
const fifo = () => join(dir(), 'config.yaml');

/** A document of 9^6 (531441) strings out of 60 lines: a YAML "billion laughs". */
const LAUGHS = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdef'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdef'[i]}`).join(',')}]`),
].join('\n');

function credprov(...args: string[]): Promise<CliResult> {
  return runCli(args, { log: noopLogger, cwd: dir() });
}

beforeAll(async () => {
  execFileSync('mkfifo', [fifo()]);
  await mkdir(join(dir(), 'providers.d'));
  execFileSync('mkfifo', [join(dir(), 'providers.d', '10-fifo.yaml')]);
  await writeFile(join(dir(), 'laughs.yaml'), `${LAUGHS}\n`);
  await writeFile(join(dir(), 'kubeconfig-laughs.yaml'), `apiVersion: v1\nkind: Config\n${LAUGHS}\n`);
  await writeFile(join(dir(), 'comments.yaml'), '# providers: to be filled in\n# - name: ecr\n');
  // 20 MiB exactly: 262144 comment lines of 80 bytes.
  await writeFile(join(dir(), 'huge.yaml'), `# ${'padding '.repeat(9)}${'.'.repeat(5)}\n`.repeat(262144));
});

afterAll(() => {
  // Should a test have blocked on a FIFO, a writer coming and going ends that read.
  for (const f of [fifo(), join(dir(), 'providers.d', '10-fifo.yaml')]) {
    try {
      closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader waiting: nothing to unblock
    }
  }
});

describe('a FIFO where a file is expected', () => {
  test.each([
    ['validate-config', () => ['validate-config', fifo()]],
    ['explain --config', () => ['explain', '--config', fifo(), '--image', 'nginx']],
    [
      'certify kubelet-plugin --config',
      () => ['certify', 'kubelet-plugin', '--plugin', join(PLUGINS, 'well-behaved'), '--config', fifo()],
    ],
    ['certify exec-plugin --kubeconfig', () => ['certify', 'exec-plugin', '--kubeconfig', fifo()]],
  ])(
    '%s refuses it at once with exit 2, naming the file',
    async (_, args) => {
      const r = await credprov(...args());
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(
        new RegExp(`^error: (kubeconfig )?${fifo()}: not a regular file \\(a FIFO\\)$`),
      );
    },
    10_000,
  );

  test('validate-config --json says so in JSON', async () => {
    const r = await credprov('validate-config', fifo(), '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      file: fifo(),
      valid: false,
      error: `${fifo()}: not a regular file (a FIFO)`,
    });
  }, 10_000);

  test('a FIFO among the files of a config directory is named', async () => {
    const entry = join(dir(), 'providers.d', '10-fifo.yaml');
    const r = await credprov('validate-config', join(dir(), 'providers.d'));
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`error: ${entry}: not a regular file (a FIFO)`);
  }, 10_000);

  test('--verify-pull-ca refuses it too', async () => {
    const r = await credprov(
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(PLUGINS, 'well-behaved'),
      '--config',
      join(PLUGINS, 'configs/v1.yaml'),
      '--image',
      'a.registry.credprov.test/x',
      '--verify-pull',
      '--verify-pull-ca',
      fifo(),
    );
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`error: --verify-pull-ca ${fifo()}: not a regular file (a FIFO)`);
  }, 10_000);

  test('an environment spec (--spec of up and run) refuses it', async () => {
    const err = await loadSpecFile(fifo()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).reason).toBe(`environment spec ${fifo()}: not a regular file (a FIFO)`);
    expect((err as ConfigError).exitCode).toBe(2);
  }, 10_000);
});

describe('a YAML alias bomb', () => {
  test('validate-config refuses it with exit 2, naming the file', async () => {
    const file = join(dir(), 'laughs.yaml');
    const r = await credprov('validate-config', file);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `error: ${file}: too many YAML aliases to expand (a "billion laughs" document?)`,
    );
  });

  test('validate-config --json says so in JSON', async () => {
    const file = join(dir(), 'laughs.yaml');
    const r = await credprov('validate-config', file, '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      file,
      valid: false,
      error: `${file}: too many YAML aliases to expand (a "billion laughs" document?)`,
    });
  });

  test('explain --json says so in JSON', async () => {
    const file = join(dir(), 'laughs.yaml');
    const r = await credprov('explain', '--config', file, '--image', 'nginx', '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      file,
      error: `${file}: too many YAML aliases to expand (a "billion laughs" document?)`,
    });
  });

  test('certify exec-plugin --kubeconfig refuses it with exit 2, naming the file', async () => {
    const file = join(dir(), 'kubeconfig-laughs.yaml');
    const r = await credprov('certify', 'exec-plugin', '--kubeconfig', file);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `error: ${file}: too many YAML aliases to expand (a "billion laughs" document?)`,
    );
  });
});

describe('comments only, and absurd sizes', () => {
  test('a file of comments is called that, not empty', async () => {
    const file = join(dir(), 'comments.yaml');
    // A verdict (the kubelet would not start with it), so exit 1.
    const r = await credprov('validate-config', file, '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toBe(
      `${file}: holds only comments (2 lines), no CredentialProviderConfig document`,
    );
    const certify = await credprov(
      'certify',
      'kubelet-plugin',
      '--plugin',
      join(PLUGINS, 'well-behaved'),
      '--config',
      file,
    );
    expect(certify.code).toBe(2);
    expect(certify.stderr.split('\n')[0]).toBe(
      `error: ${file}: holds only comments (2 lines), no CredentialProviderConfig document`,
    );
  });

  test('a 20 MB file is refused with the limit, before it is parsed', async () => {
    const file = join(dir(), 'huge.yaml');
    const t0 = Date.now();
    const r = await credprov('validate-config', file);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `error: ${file}: 20 MiB is too large; credprov reads input files of up to 8 MiB`,
    );
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});

describe('a missing file', () => {
  test.each([
    ['validate-config', (f: string) => ['validate-config', f], (f: string) => `error: ${f}: no such file or directory`],
    [
      'explain --config',
      (f: string) => ['explain', '--config', f, '--image', 'nginx'],
      (f: string) => `error: ${f}: no such file or directory`,
    ],
    [
      'certify kubelet-plugin --config',
      (f: string) => ['certify', 'kubelet-plugin', '--plugin', join(PLUGINS, 'well-behaved'), '--config', f],
      (f: string) => `error: ${f}: no such file or directory`,
    ],
    [
      'certify exec-plugin --kubeconfig',
      (f: string) => ['certify', 'exec-plugin', '--kubeconfig', f],
      (f: string) => `error: kubeconfig ${f}: no such file or directory`,
    ],
  ])('%s exits 2 and names it', async (_, args, line) => {
    const file = join(dir(), 'nope.yaml');
    const r = await credprov(...args(file));
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(line(file));
  });

  test('validate-config --json exits 2 too', async () => {
    const file = join(dir(), 'nope.yaml');
    const r = await credprov('validate-config', file, '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ file, valid: false, error: `${file}: no such file or directory` });
  });
});
