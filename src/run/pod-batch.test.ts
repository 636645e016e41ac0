import { describe, expect, test } from '@jest/globals';
import { containerOutcomeOf, decisiveEvent } from './pod-batch.ts';

const ev = (reason: string, message: string) => ({ type: 'Normal', reason, message });

describe('a batch container, as the kubelet leaves it', () => {
  test('its outcome in the KEP-2535 model’s words', () => {
    expect(containerOutcomeOf({ running: {} })).toBe('Running');
    expect(containerOutcomeOf({ waiting: { reason: 'ImagePullBackOff' } })).toBe('ErrImagePull');
    expect(containerOutcomeOf({ waiting: { reason: 'ErrImageNeverPull' } })).toBe('ErrImageNeverPull');
    expect(containerOutcomeOf({ waiting: { reason: 'ContainerCreating' } })).toBeUndefined();
  });

  test('the event that decides it: present and accessible before present, a pull before a failure', () => {
    const present = ev('Pulled', 'Container image "x" already present on machine and can be accessed by the pod');
    expect(decisiveEvent([ev('Pulled', 'Container image "x" already present on machine'), present])?.kind).toBe(
      'present-accessible',
    );
    expect(decisiveEvent([ev('Failed', 'Failed to pull image "x": 401')])?.kind).toBe('pull-failed');
    expect(decisiveEvent([ev('Scheduled', 'x')])).toBeUndefined();
  });
});
