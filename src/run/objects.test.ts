import { expect, test } from '@jest/globals';
import { ApiError } from '../cluster/api.ts';
import { CredprovError } from '../core/errors.ts';
import { refusalOf } from './objects.ts';

test("a refusal reads as the API server's own line that says invalid or forbidden", () => {
  const status = new ApiError('patch pod x: HTTP 422 Invalid', {
    status: 422,
    serverMessage:
      'Pod "x" is invalid:\nspec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`',
  });
  expect(refusalOf(status)).toBe('Pod "x" is invalid:');
  expect(refusalOf(new CredprovError('failed', { detail: 'first line\nspec: Forbidden: no' }))).toBe(
    'spec: Forbidden: no',
  );
  expect(refusalOf(new Error('socket hang up'))).toBe('socket hang up');
});
