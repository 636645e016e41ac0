// Reading kubectl's output: the last HTTP status of a -v=6 run and its error line, and whoami's user.
import { describe, expect, test } from '@jest/globals';
import { kubectlOutcome, userInfoOf } from './kubectl-output.ts';

describe('kubectl output', () => {
  test('kubectl -v=6: the last status it logged, and its error line', () => {
    const stderr =
      'I1125 round_trippers.go:560] "Response" verb="GET" url="https://x" status="401 Unauthorized" milliseconds=3\nerror: You must be logged in';
    expect(kubectlOutcome(stderr)).toEqual({ status: 401, kubectlError: 'error: You must be logged in' });
  });

  test('whoami output', () => {
    expect(userInfoOf(JSON.stringify({ status: { userInfo: { username: 'u', groups: ['g'] } } }))).toEqual({
      username: 'u',
      groups: ['g'],
    });
    expect(userInfoOf('not json')).toBeUndefined();
  });
});
