import { expect, test } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRecord, readRecords } from './pull-records.ts';

test("the kubelet's records and intents are read with their modes; a .tmp file and unparsable JSON are named", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'credprov-records-'));
  try {
    await mkdir(join(dir, 'pulled'), { mode: 0o700 });
    await mkdir(join(dir, 'pulling'), { mode: 0o700 });
    await writeFile(join(dir, 'pulled', 'sha256-a'), '{"kind":"ImagePulledRecord"}', { mode: 0o600 });
    await writeFile(join(dir, 'pulled', 'sha256-b.tmp'), 'x');
    await writeFile(join(dir, 'pulling', 'sha256-c'), 'not json', { mode: 0o600 });
    const l = await readRecords(dir);
    expect(l.pulled.map((r) => [r.name, r.mode.toString(8), r.json])).toEqual([
      ['sha256-a', '600', { kind: 'ImagePulledRecord' }],
    ]);
    expect(l.pulling[0]?.parseError).toBeDefined();
    expect(l.tmp).toEqual([join(dir, 'pulled', 'sha256-b.tmp')]);
    expect(await readRecord(dir, 'sha256-a')).toEqual({ kind: 'ImagePulledRecord' });
    expect(await readRecord(dir, 'absent')).toBeUndefined();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
