import { describe, expect, test } from '@jest/globals';
import { cutNote, cutResponse, size, type Invocation } from './invocation.ts';
import { MAX_STDOUT_BYTES } from './output-capture.ts';

function inv(stdout: string, totalBytes?: number): Invocation {
  return {
    id: 'kp-0001',
    protocol: 'kubelet-credential-provider',
    startedAt: '',
    durationMs: 1,
    argv: ['/p'],
    envKeys: [],
    request: null,
    stdout,
    stderr: '',
    timedOut: false,
    exitCode: 0,
    ...(totalBytes === undefined ? {} : { outputBytes: { stdout: totalBytes, stderr: 0 } }),
  };
}

const TOTAL = MAX_STDOUT_BYTES + 1_000_000;

describe('cutResponse: is what the runner kept only the start of a response?', () => {
  test('says where stdout was cut when the kept part is one object not yet closed', () => {
    const kept = '{"apiVersion":"v1","auth":{"a":{"username":"u","password":"p"},"b":{"usern';
    expect(cutResponse(inv(kept, TOTAL))).toBe(`stdout was cut at ${kept.length} bytes of ${TOTAL}`);
  });

  test('also when the object closed with only blanks after it: what followed the cut is unknown', () => {
    expect(cutResponse(inv('  {"a":"}"}\n   ', TOTAL))).toBe(`stdout was cut at 15 bytes of ${TOTAL}`);
    expect(cutResponse(inv('      ', TOTAL))).toBeDefined();
  });

  test('leaves alone a stdout that was not cut, and a cut one whose kept part already shows noise (cutNote says it was cut, and why that is enough)', () => {
    expect(cutResponse(inv('{"a":'))).toBeUndefined();
    const noisy = inv('{"a":1}\ndebug: token cache refreshed\ndebug: tok', 32 * 1024 * 1024);
    expect(cutResponse(noisy)).toBeUndefined();
    expect(cutNote(noisy)).toBe(
      ' (stdout was 32 MiB; credprov kept the first 47 bytes: what follows cannot change the verdict)',
    );
    expect(cutResponse(inv('Fetching token… {"a":', TOTAL))).toBeUndefined();
    expect(cutResponse(inv('{"a":1}{"b":', TOTAL))).toBeUndefined();
  });

  test('sizes read as people write them', () => {
    expect([size(812), size(65536), size(66000), size(32 * 1024 * 1024), size(5_349_161)]).toEqual([
      '812 bytes',
      '64 KiB',
      '64.5 KiB',
      '32 MiB',
      '5.1 MiB',
    ]);
  });
});
