import { describe, expect, test } from '@jest/globals';
import { Capture, NOISE_KEPT_BYTES, SettlePoint } from './output-capture.ts';

const settled = (reader: 'json' | 'json-or-yaml', ...chunks: string[]) => {
  const s = new SettlePoint(reader);
  for (const c of chunks) s.feed(Buffer.from(c));
  return s.settledAt;
};

describe('SettlePoint: where nothing more on stdout can change the verdict', () => {
  test('at the first non-blank byte after a complete object, across chunks, strings and nesting included', () => {
    expect(settled('json', '{"a":"}{\\"x","b":[{}]}', '  \n', 'debug')).toBe(25);
    expect(settled('json-or-yaml', '{"a"', ':1}\n', '\n{')).toBe(9);
  });

  test('never while the object is open or only blanks follow it', () => {
    expect(settled('json', '{"a":{"b":1}')).toBeUndefined();
    expect(settled('json', '{"a":1}\n\t \r\n')).toBeUndefined();
  });

  test("for the kubelet's JSON reader, at a first byte that is not '{'; for client-go (YAML too), never", () => {
    expect(settled('json', '  \uFEFF{"a":1}')).toBe(2);
    expect(settled('json', '[1]')).toBe(0);
    expect(settled('json-or-yaml', 'apiVersion: v1\nkind: ExecCredential\n')).toBeUndefined();
  });
});

describe('Capture', () => {
  test('keeps a large answer whole, and only NOISE_KEPT_BYTES past the settle point of noise', () => {
    const answer = `{"auth":{${Array.from({ length: 60_000 }, (_, i) => `"m${i}.reg.io":{"username":"u","password":"p"}`).join(',')}}}`;
    const c = new Capture(64 * 1024 * 1024, 'json');
    for (let i = 0; i < answer.length; i += 65536) c.add(Buffer.from(answer.slice(i, i + 65536)));
    const noise = Buffer.alloc(1024 * 1024, 'x');
    for (let i = 0; i < 8; i++) c.add(noise);
    expect(c.size).toBe(answer.length + 8 * 1024 * 1024);
    expect(c.keptBytes).toBe(answer.length + NOISE_KEPT_BYTES);
    expect(c.text().startsWith(answer)).toBe(true);
  });
});
