// k/k #138175 on credprov's models: a preloaded image pulled under another name sharing its digest.
import { describe, expect, test } from '@jest/globals';
import { behaviourFor } from '../versions/table.ts';
import { NodeImagesModel, storedName } from './node-images.ts';
import type { PodCredentials, PodSecret } from './ensure-secret-pulled.ts';

const X = 'pub.test:5000/tools/x:v1';
const Y = 'priv.test:5000/team/y:v1';
const REF = 'sha256:shared';
const secret: PodSecret = {
  name: 'pull',
  uid: 's-1',
  auths: { 'priv.test:5000': { username: 'u', password: 'p', works: true } },
};
const pod = (p: Partial<PodCredentials> = {}): PodCredentials => ({
  namespace: 'ns',
  serviceAccount: { name: 'default', uid: 'sa-1' },
  secrets: [],
  ...p,
});

describe('names sharing an image ID (k/k #138175)', () => {
  test('stored names are normalised with their tag', () => {
    expect(storedName('alpine')).toBe('docker.io/library/alpine:latest');
    expect(storedName(X)).toBe(X);
  });

  test.each([35, 36, 37, 38])(
    '1.%i: a Never pod of the preloaded name runs, until another name of its digest is pulled',
    (minor) => {
      const node = new NodeImagesModel(behaviourFor(`1.${minor}`));
      node.preload(X, REF);
      expect(node.run({ image: X, pullPolicy: 'Never', pod: pod(), imageRef: REF })).toMatchObject({
        outcome: 'Running',
        check: 'credentialPolicyAllowed',
      });
      const y = node.run({ image: Y, pullPolicy: 'IfNotPresent', pod: pod({ secrets: [secret] }), imageRef: REF });
      expect(y).toMatchObject({ outcome: 'Running', pull: true, recordCreated: true, imageRef: REF });
      const again = node.run({ image: X, pullPolicy: 'Never', pod: pod(), imageRef: REF });
      expect(again).toMatchObject({ outcome: 'ErrImageNeverPull', check: 'mustAuthenticate' });
      expect(again.because).toMatch(/record has no entry for .*x/);
      expect(again.because).toMatch(/shared with priv\.test:5000\/team\/y:v1/);
    },
  );

  test('an IfNotPresent pod of the preloaded name pulls it (anonymously, if its registry allows) and repairs the record', () => {
    const node = new NodeImagesModel(behaviourFor('1.37'));
    node.preload(X, REF);
    node.run({ image: Y, pullPolicy: 'IfNotPresent', pod: pod({ secrets: [secret] }), imageRef: REF });
    expect(
      node.run({ image: X, pullPolicy: 'IfNotPresent', pod: pod({ publicImage: true }), imageRef: REF }),
    ).toMatchObject({
      outcome: 'Running',
      pull: true,
      check: 'mustAuthenticate',
    });
    expect(node.recordOf(REF)!.credentialMapping['pub.test:5000/tools/x']).toEqual({ nodePodsAccessible: true });
    expect(node.run({ image: X, pullPolicy: 'Never', pod: pod(), imageRef: REF })).toMatchObject({
      outcome: 'Running',
      check: 'credentialRecordFound',
    });
  });

  test('distinct digests never touch each other (what the suite cells did until now)', () => {
    const node = new NodeImagesModel(behaviourFor('1.37'));
    node.preload(X, 'sha256:x');
    node.run({ image: Y, pullPolicy: 'IfNotPresent', pod: pod({ secrets: [secret] }), imageRef: 'sha256:y' });
    expect(node.run({ image: X, pullPolicy: 'Never', pod: pod(), imageRef: 'sha256:x' }).outcome).toBe('Running');
  });

  test('a kubelet that records preloaded images is refused until modelled', () => {
    expect(() => new NodeImagesModel({ ...behaviourFor('1.37'), preloadedImageRecords: true })).toThrow(/#139156/);
  });
});
