// tokenAttributes and the KEP-4412 gates per minor, from the version table.
import { expect, test } from '@jest/globals';
import { behaviourFor, SUPPORTED_MINORS } from '../../versions/table.ts';
import { saTokenGates, tokenAttributesFor } from './for-version.ts';

const attrs = { serviceAccountTokenAudience: 'aud', requireServiceAccount: true };

test.each(SUPPORTED_MINORS)(
  '1.%i: cacheType kept where the kubelet has it, dropped (ServiceAccount) on 1.33',
  (minor) => {
    const b = behaviourFor(`1.${minor}`);
    expect(tokenAttributesFor(b, { ...attrs, cacheType: 'ServiceAccount' })).toEqual(
      b.cacheTypeRequired ? { ...attrs, cacheType: 'ServiceAccount' } : attrs,
    );
  },
);

test('cacheType Token has no 1.33 equivalent: refused, not turned into ServiceAccount', () => {
  expect(() => tokenAttributesFor(behaviourFor('1.33'), { ...attrs, cacheType: 'Token' })).toThrow(/no cacheType/);
  expect(tokenAttributesFor(behaviourFor('1.34'), { ...attrs, cacheType: 'Token' }).cacheType).toBe('Token');
});

test('the gate on kubelet and kube-apiserver only where it is off by default (1.33, alpha)', () => {
  const on = { KubeletServiceAccountTokenForCredentialProviders: true };
  expect(saTokenGates(behaviourFor('1.33'))).toEqual({ kubelet: on, apiserver: on });
  for (const minor of SUPPORTED_MINORS.filter((m) => m !== 33))
    expect(saTokenGates(behaviourFor(`1.${minor}`))).toEqual({ kubelet: {}, apiserver: {} });
});
