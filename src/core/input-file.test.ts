// readInputText refuses what is not a plain, reasonably sized file, at once.
import { describe, expect, test } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputFileError } from './errors.ts';
import { readInputText } from './input-file.ts';
import { useTempDir } from '../testing/tmp.ts';

const dir = useTempDir('credprov-input-file-');

async function refusal(path: string, o: Parameters<typeof readInputText>[1] = {}): Promise<InputFileError> {
  try {
    await readInputText(path, o);
  } catch (e) {
    if (e instanceof InputFileError) return e;
    throw e;
  }
  throw new Error('expected an InputFileError');
}

describe('readInputText', () => {
  test('reads a file', async () => {
    await writeFile(join(dir(), 'a.yaml'), 'kind: x\n');
    expect(await readInputText(join(dir(), 'a.yaml'))).toBe('kind: x\n');
  });

  test('reads files that report size 0, like those in /proc', async () => {
    expect(await readInputText('/proc/self/status')).toMatch(/^Name:/);
  });

  test('refuses a device that never ends, a directory and a missing file, naming each, exit 2', async () => {
    const zero = await refusal('/dev/zero', { label: 'kubeconfig' });
    expect(zero.reason).toBe('kubeconfig /dev/zero: not a regular file (a character device)');
    expect(zero.exitCode).toBe(2);
    expect(zero.file).toBe('/dev/zero');
    expect((await refusal(dir())).reason).toBe(`${dir()}: is a directory, not a file`);
    expect((await refusal(join(dir(), 'nope'))).reason).toBe(`${join(dir(), 'nope')}: no such file or directory`);
  });

  test('refuses a file over the limit, with the limit', async () => {
    await writeFile(join(dir(), 'big'), 'x'.repeat(3 * 1024 * 1024));
    expect((await refusal(join(dir(), 'big'), { maxBytes: 1024 * 1024 })).reason).toBe(
      `${join(dir(), 'big')}: 3 MiB is too large; credprov reads input files of up to 1 MiB`,
    );
  });
});
