import { describe, expect, test } from '@jest/globals';
import { skewProblem } from './skew.ts';

describe('version skew policy', () => {
  test('a kubelet up to three minors older is supported, the same minor too', () => {
    for (const k of ['1.37.1', '1.36', '1.35', 'v1.34.10']) expect(skewProblem('v1.37.1', k)).toBeUndefined();
  });
  test('four minors older, or newer, is refused with one line naming the rule', () => {
    expect(skewProblem('v1.37.1', '1.33')).toBe(
      'kubelet v1.33 is 4 minor versions older than kube-apiserver v1.37.1: a kubelet may be up to 3 minor versions older than kube-apiserver, never newer (Kubernetes version skew policy)',
    );
    expect(skewProblem('1.36', '1.37.1')).toMatch(/^kubelet v1\.37\.1 is newer than kube-apiserver v1\.36: /);
  });
});
