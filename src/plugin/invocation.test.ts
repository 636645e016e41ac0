import { describe, expect, test } from '@jest/globals';
import { cutNote, cutResponse, type Invocation } from './invocation.ts';
import { MAX_OUTPUT_BYTES } from './spawn.ts';

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

const TOTAL = MAX_OUTPUT_BYTES + 1_000_000;

describe('cutResponse: is what the runner kept only the start of a response?', () => {
  test('says where stdout was cut when the kept part is one object not yet closed', () => {
    expect(cutResponse(inv('{"apiVersion":"v1","auth":{"a":{"username":"u","password":"p"},"b":{"usern', TOTAL))).toBe(
      `stdout was cut at 4194304 bytes of ${TOTAL}`,
    );
  });

  test('also when the object closed with only blanks after it: what followed the cut is unknown', () => {
    expect(cutResponse(inv('  {"a":"}"}\n   ', TOTAL))).toBe(`stdout was cut at 4194304 bytes of ${TOTAL}`);
    expect(cutResponse(inv('      ', TOTAL))).toBeDefined();
  });

  test('leaves alone a stdout that was not cut, and a cut one whose kept part already shows noise (cutNote says it was cut)', () => {
    expect(cutResponse(inv('{"a":'))).toBeUndefined();
    const noisy = inv('{"a":1}\ndebug: token cache refreshed\ndebug: tok', TOTAL);
    expect(cutResponse(noisy)).toBeUndefined();
    expect(cutNote(noisy)).toBe(' (stdout was 5.0 MiB; credprov kept the first 4 MiB)');
    expect(cutResponse(inv('Fetching token… {"a":', TOTAL))).toBeUndefined();
    expect(cutResponse(inv('{"a":1}{"b":', TOTAL))).toBeUndefined();
  });
});
