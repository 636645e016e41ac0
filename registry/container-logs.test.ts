import { describe, test, expect } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useTempDir } from '../src/testing/tmp.ts';
import { LogCapture } from './container-logs.ts';

describe('LogCapture', () => {
  const dir = useTempDir('credprov-logcap-');

  test('appends the container output to the file and says when it ended', async () => {
    const file = join(dir(), 'a.log');
    await writeFile(file, 'earlier\n');
    const cap = new LogCapture(file);
    const stream = new PassThrough();
    cap.capture(stream);
    stream.write('time="…" level=info msg="listening on 127.0.0.1:5000"\n');
    expect(cap.ended()).toBeUndefined();
    stream.end('127.0.0.1 - - "GET /v2/ HTTP/1.1" 401\n');
    await cap.flushed(2000);
    expect(cap.ended()).toBe('the registry container stopped (its output ended)');
    expect(await readFile(file, 'utf8')).toBe(
      'earlier\ntime="…" level=info msg="listening on 127.0.0.1:5000"\n127.0.0.1 - - "GET /v2/ HTTP/1.1" 401\n',
    );
  });

  test('close() hands over: what arrived is in the file, nothing after, and it is not taken for a stop', async () => {
    const file = join(dir(), 'b.log');
    const cap = new LogCapture(file, 'w');
    const stream = new PassThrough();
    cap.capture(stream);
    stream.write('first\n');
    await new Promise((r) => setImmediate(r));
    await cap.close();
    expect(stream.destroyed).toBe(true);
    expect(cap.ended()).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe('first\n');
  });
});
