import { describe, test, expect } from '@jest/globals';
import { htpasswdFile, htpasswdLine, htpasswdVerify } from './htpasswd.ts';

describe('htpasswd', () => {
  test('writes bcrypt lines the registry accepts ($2 prefix, one per user)', () => {
    const file = htpasswdFile([
      { username: 'alice', password: 'a' },
      { username: 'bob', password: 'b' },
    ]);
    const lines = file.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^alice:\$2[aby]\$05\$/);
  });

  test('verifies the right password and refuses a wrong one or an unknown user', () => {
    const file = htpasswdFile([{ username: 'alice', password: 's3cret:with:colons' }]);
    expect(htpasswdVerify(file, 'alice', 's3cret:with:colons')).toBe(true);
    expect(htpasswdVerify(file, 'alice', 's3cret')).toBe(false);
    expect(htpasswdVerify(file, 'mallory', 's3cret:with:colons')).toBe(false);
  });

  test('refuses user names that would break the file format', () => {
    expect(() => htpasswdLine({ username: 'a:b', password: 'x' })).toThrow(/must not be empty or contain ':'/);
  });
});
