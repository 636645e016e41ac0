import { describe, expect, test } from '@jest/globals';
import { CredprovError } from '../core/errors.ts';
import { printError } from './output.ts';

const printed = (e: unknown) => {
  let out = '';
  printError(e, false, (s) => (out += s));
  return out;
};

describe('one error: prefix everywhere', () => {
  test('a reason or message that already says "error:" (or "Error:") is not prefixed twice', () => {
    expect(printed(new CredprovError('error: kubectl refused the config'))).toBe('error: kubectl refused the config\n');
    expect(printed(new Error('Error: boom')).split('\n')[0]).toBe('error: boom');
    expect(printed(new Error('ERROR: boom')).split('\n')[0]).toBe('error: boom');
  });

  test('every other error line starts with exactly one error:', () => {
    expect(printed(new CredprovError('no such file')).split('\n')[0]).toBe('error: no such file');
  });
});
