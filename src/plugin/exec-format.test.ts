import { describe, expect, test } from '@jest/globals';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useTempDir } from '../testing/tmp.ts';
import { binfmtMatches, execveFormatError, parseBinfmtEntry } from './exec-format.ts';

const dir = useTempDir('credprov-exec-format-');

async function file(name: string, content: string | Buffer, mode = 0o755): Promise<string> {
  const path = join(dir(), name);
  await writeFile(path, content);
  await chmod(path, mode);
  return path;
}

/** A stand-in for /proc/sys/fs/binfmt_misc with the given entries. */
async function binfmt(status: 'enabled' | 'disabled', entries: Record<string, string>): Promise<string> {
  const d = join(dir(), `binfmt-${Object.keys(entries).join('-') || 'none'}-${status}`);
  await mkdir(d, { recursive: true });
  await writeFile(join(d, 'status'), `${status}\n`);
  await writeFile(join(d, 'register'), '');
  for (const [name, text] of Object.entries(entries)) await writeFile(join(d, name), text);
  return d;
}

const CAFE = 'enabled\ninterpreter /usr/bin/cafe-runner\nflags: \noffset 2\nmagic cafe\nmask ffff\n';
const JAR = 'enabled\ninterpreter /usr/bin/jexec\nflags: \nextension .jar\n';

describe('execveFormatError: would execve refuse this file for its format?', () => {
  test('refuses a script without #! and an empty file (ENOEXEC), where execvp would run them with /bin/sh', async () => {
    const none = await binfmt('enabled', {});
    expect(execveFormatError(await file('no-shebang', 'echo hi\n'), none)).toBe('ENOEXEC');
    expect(execveFormatError(await file('empty', ''), none)).toBe('ENOEXEC');
  });

  test('accepts ELF and #! files', async () => {
    const none = await binfmt('enabled', {});
    expect(execveFormatError(await file('elf', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1])), none)).toBeUndefined();
    expect(execveFormatError(await file('script', '#!/bin/sh\nexit 0\n'), none)).toBeUndefined();
  });

  test('leaves missing, non-executable and directory paths to spawn, which reports them as execve does', async () => {
    const none = await binfmt('enabled', {});
    expect(execveFormatError(join(dir(), 'missing'), none)).toBeUndefined();
    expect(execveFormatError(await file('not-executable', 'echo hi\n', 0o644), none)).toBeUndefined();
    expect(execveFormatError(dir(), none)).toBeUndefined();
  });

  test('accepts what an enabled binfmt_misc handler claims, by magic at its offset or by extension', async () => {
    const handlers = await binfmt('enabled', { cafe: CAFE, jar: JAR });
    expect(execveFormatError(await file('cafe', Buffer.from([0, 0, 0xca, 0xfe, 1])), handlers)).toBeUndefined();
    expect(execveFormatError(await file('cafe-elsewhere', Buffer.from([0xca, 0xfe, 0, 0])), handlers)).toBe('ENOEXEC');
    expect(execveFormatError(await file('tool.jar', 'PK\u0003\u0004'), handlers)).toBeUndefined();
  });

  test('ignores handlers when binfmt_misc is disabled, absent, or the entry is disabled', async () => {
    const cafe = await file('cafe2', Buffer.from([0, 0, 0xca, 0xfe]));
    expect(execveFormatError(cafe, await binfmt('disabled', { cafe: CAFE }))).toBe('ENOEXEC');
    expect(execveFormatError(cafe, join(dir(), 'no-binfmt-mount'))).toBe('ENOEXEC');
    expect(execveFormatError(cafe, await binfmt('enabled', { off: CAFE.replace('enabled', 'disabled') }))).toBe(
      'ENOEXEC',
    );
  });
});

describe('binfmt_misc entries', () => {
  test('parses the magic, mask and offset, or the extension, as the kernel shows them', () => {
    expect(parseBinfmtEntry('cafe', CAFE)).toEqual({
      name: 'cafe',
      offset: 2,
      magic: Buffer.from([0xca, 0xfe]),
      mask: Buffer.from([0xff, 0xff]),
    });
    expect(parseBinfmtEntry('jar', JAR)).toEqual({ name: 'jar', offset: 0, extension: 'jar' });
    expect(parseBinfmtEntry('off', 'disabled\nmagic cafe\n')).toBeUndefined();
  });

  test('compares under the mask', () => {
    const h = { name: 'x', offset: 0, magic: Buffer.from([0x10]), mask: Buffer.from([0xf0]) };
    expect(binfmtMatches(h, Buffer.from([0x1f]), '/x')).toBe(true);
    expect(binfmtMatches(h, Buffer.from([0x2f]), '/x')).toBe(false);
  });
});
