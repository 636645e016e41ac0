import { describe, expect, test } from '@jest/globals';
import { predictStory } from './predict.ts';

const input = (kubeletVersion: string) => ({
  kubeletVersion,
  namespace: 'pre',
  host: '127.0.0.9:5000',
  root: 'pre-1',
  imageRef: 'sha256:shared',
  secretUid: 'uid-s',
});

describe('preloaded-images predictions (k/k #138175)', () => {
  test.each(['1.35.4', '1.36.5', '1.37.1', '1.38.0-alpha.0'])('kubelet %s: the story of five pods', (v) => {
    const steps = predictStory(input(v));
    expect(steps.map((s) => s.outcome.value)).toEqual([
      'Running',
      'Running',
      'ErrImageNeverPull',
      'Running',
      'Running',
    ]);
    const y = '127.0.0.9:5000/pre-1/y';
    const x = '127.0.0.9:5000/pre-1/x';
    expect(steps.map((s) => s.mappedAfter)).toEqual([[], [y], [y], [x, y], [x, y]]);
    expect(steps[2]!.outcome.because).toMatch(/shared with 127\.0\.0\.9:5000\/pre-1\/y:v1/);
  });
});
