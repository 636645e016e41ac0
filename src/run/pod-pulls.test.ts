import { expect, test } from '@jest/globals';
import type { V1Pod } from '@kubernetes/client-node';
import { countEvents, pullOutcomeOf } from './pod-pulls.ts';

const pod = {} as V1Pod;
const failed = (message: string) => ({ type: 'Warning', reason: 'Failed', message });

test('a pull reads success, failure for a refused login, and error with the message for anything else', () => {
  expect(pullOutcomeOf({ kind: 'completed', exitCode: 0, pod }, [])).toBe('success');
  const refused = failed('Failed to pull image "x": 401 Unauthorized');
  expect(pullOutcomeOf({ kind: 'pull-failed', reason: 'ErrImagePull', message: '', pod }, [refused])).toBe('failure');
  const missing = failed('Failed to pull image "x": not found');
  expect(pullOutcomeOf({ kind: 'pull-failed', reason: 'ErrImagePull', message: '', pod }, [missing])).toBe(
    'error: Failed to pull image "x": not found',
  );
});

test('events are counted as often as they happened, by reason and message', () => {
  const events = [
    { type: 'Normal', reason: 'Pulling', message: 'Pulling image "x"', count: 3 },
    failed('Failed to pull image "x": 401'),
    failed('Error: ErrImagePull'),
  ];
  expect(countEvents(events, 'Pulling')).toBe(3);
  expect(countEvents(events, 'Failed', /^Failed to pull image/)).toBe(1);
});
