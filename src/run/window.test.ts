import { expect, test } from '@jest/globals';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { linesSince, since } from './window.ts';

test('a window on a growing log gives what it gained since it opened, as often as asked', async () => {
  const log = ['a', 'b'];
  const w = await since(async () => [...log]);
  expect(await w.added()).toEqual([]);
  log.push('c', 'd');
  expect(await w.added()).toEqual(['c', 'd']);
  log.push('e');
  expect(await w.added()).toEqual(['c', 'd', 'e']);
});

test('a window on a log file gives the lines appended since it opened; a file not there yet is empty until it is', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'credprov-window-'));
  try {
    const file = join(dir, 'kubelet.log');
    const missing = await linesSince(join(dir, 'absent.log'));
    expect(await missing.added()).toEqual([]);
    await writeFile(file, 'old line\n');
    const w = await linesSince(file);
    expect(await w.added()).toEqual([]);
    await appendFile(file, 'new one\nand another\n');
    expect(await w.added()).toEqual(['new one', 'and another']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
