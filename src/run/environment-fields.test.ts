import { describe, expect, test } from '@jest/globals';
import type { Environment } from '../cluster/provider.ts';
import { kubeletVersionOf, twoNodesOf } from './environment-fields.ts';

const env = (o: Partial<Environment>) => ({ name: 'e', provider: 'kind', nodeName: 'cp', ...o }) as Environment;

describe('twoNodesOf (capability secondNode)', () => {
  test('node A is nodeName, node B the first other node, whatever the order of nodes', () => {
    expect(twoNodesOf(env({ nodes: ['cp', 'w1', 'w2'] }))).toEqual(['cp', 'w1']);
    expect(twoNodesOf(env({ nodes: ['w1', 'cp'] }))).toEqual(['cp', 'w1']);
  });

  test('one node, or no nodes field: an error naming the capability and what to do', () => {
    for (const nodes of [undefined, ['cp']]) {
      const e = env(nodes ? { nodes } : {});
      expect(() => twoNodesOf(e)).toThrow(/environment e \(provider kind\) has no second node .*capability secondNode/);
    }
  });
});

test("kubeletVersionOf: a swapped kubelet's version, else the cluster's", () => {
  expect(kubeletVersionOf(env({ kubeVersion: 'v1.37.1' }))).toBe('v1.37.1');
  expect(kubeletVersionOf(env({ kubeVersion: 'v1.37.1', kubeletVersion: 'v1.35.9' }))).toBe('v1.35.9');
});
