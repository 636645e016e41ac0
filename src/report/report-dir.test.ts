// --report-dir as users get it wrong: every mistake is one UsageError (exit 2)
// naming the flag and the path, found before any plugin runs.
import { describe, expect, test } from '@jest/globals';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { useTempDir } from '../testing/tmp.ts';
import { prepareReportDir } from './report-dir.ts';

const dir = useTempDir('credprov-report-dir-');

async function refusal(given: string | undefined, cwd = dir()): Promise<UsageError> {
  try {
    await prepareReportDir(given, cwd);
  } catch (e) {
    if (e instanceof UsageError) return e;
    throw e;
  }
  throw new Error('expected a UsageError');
}

describe('prepareReportDir', () => {
  test('creates a missing directory, several levels deep, relative to the working directory', async () => {
    const got = await prepareReportDir('a/b/c', dir());
    expect(got).toBe(join(dir(), 'a/b/c'));
    expect((await stat(got)).isDirectory()).toBe(true);
  });

  test('defaults to reports/<timestamp>/ under the working directory', async () => {
    const got = await prepareReportDir(undefined, dir(), new Date('2025-01-02T03:04:05.678Z'));
    expect(got).toBe(join(dir(), 'reports', '2025-01-02T030405Z'));
  });

  test('refuses an empty path instead of writing into the working directory', async () => {
    const e = await refusal('');
    expect(e.exitCode).toBe(2);
    expect(e.reason).toBe('--report-dir "": the path is empty');
  });

  test('refuses a path under /proc at once instead of spinning', async () => {
    const t0 = Date.now();
    const e = await refusal('/proc/credprov-report');
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(e.reason).toBe(
      '--report-dir /proc/credprov-report: cannot create /proc/credprov-report (directories cannot be created there)',
    );
  });

  test('refuses /proc itself: it cannot be written', async () => {
    expect((await refusal('/proc')).reason).toMatch(/^--report-dir \/proc: cannot write there/);
  });

  test('refuses a file, and a path under a file', async () => {
    const file = join(dir(), 'a-file');
    await writeFile(file, 'x');
    expect((await refusal(file)).reason).toBe(`--report-dir ${file}: is a file, not a directory`);
    expect((await refusal(join(file, 'sub'))).reason).toBe(
      `--report-dir ${join(file, 'sub')}: ${file} is not a directory`,
    );
  });

  test('refuses a place where directories cannot be made (sysfs: EPERM even for root)', async () => {
    expect((await refusal('/sys/credprov-report')).reason).toBe(
      '--report-dir /sys/credprov-report: cannot create /sys/credprov-report (operation not permitted)',
    );
  });
});
