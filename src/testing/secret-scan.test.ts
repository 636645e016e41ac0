import { expect, test } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { leaks, RecordingRedactor } from './secret-scan.ts';

test('a leak names the file, the secret by number and the text around it, with every secret in that text masked', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'credprov-scan-'));
  try {
    const [a, b] = ['first-secret-value', 'second-secret-value'];
    await writeFile(join(dir, 'log.jsonl'), `{"field":"${a}","other":"${b}"}\n`);
    const found = await leaks(dir, [a, b, 'short']);
    expect(found).toEqual([
      `${join(dir, 'log.jsonl')}: secret #0 in ${JSON.stringify('{"field":"<secret #0>","other":"<secret #1>"}\n')}`,
      `${join(dir, 'log.jsonl')}: secret #1 in ${JSON.stringify('{"field":"<secret #0>","other":"<secret #1>"}\n')}`,
    ]);
    expect(found.join()).not.toContain(a);
    expect(found.join()).not.toContain(b);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the recording redactor hears registered secrets, not what it learnt from some text (those still get redacted)', () => {
  const r = new RecordingRedactor();
  r.add('a-registered-secret');
  // STS's refusal looks like key: value to the learner ("…Token: Incorrect token audience …").
  const line = 'InvalidIdentityToken: Incorrect-token-audience';
  const learnt = r.text(line);
  expect(r.seen).toEqual(['a-registered-secret']);
  expect(learnt).not.toContain('Incorrect-token-audience');
  expect(r.text('x a-registered-secret y')).not.toContain('a-registered-secret');
});
