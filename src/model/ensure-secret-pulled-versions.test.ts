// The KEP-2535 model per kubelet minor: the version table's fields
// kep2535ImageNames (k/k #137629), serviceAccountPullRecords (#132771),
// pulledRecordLookup (#135369/#136558) and pullRecordApiVersion, as the model
// applies them. Vectors from image_pull_policies_test.go of v1.35.4 and v1.37.1.
import { describe, expect, test } from '@jest/globals';
import { behaviourFor } from '../versions/table.ts';
import {
  allowlistEntryValid,
  allowlistMatches,
  ensureImageExists,
  kubeletOfMinor,
  recordApiVersion,
  recordImageName,
  type PodCredentials,
} from './ensure-secret-pulled.ts';
import { CONTAINERD_PULL_REF, recordKeys } from './pull-record-keys.ts';

const k35 = kubeletOfMinor(35);
const k36 = kubeletOfMinor(36);
const k37 = kubeletOfMinor(37);

describe('kep2535ImageNames (k/k #137629)', () => {
  test('the table: 1.33–1.35 before the fix, 1.36 on (and the provisional 1.38) after', () => {
    expect([33, 34, 35, 36, 37, 38].map((m) => behaviourFor(`1.${m}`).kep2535ImageNames)).toEqual([
      'pre-137629',
      'pre-137629',
      'pre-137629',
      'as-written',
      'as-written',
      'as-written',
    ]);
  });

  test('allowlist entries: 1.35 refuses a familiar name, 1.36+ takes it as written', () => {
    expect(allowlistEntryValid('alpine', k35.kep2535ImageNames)).toBe(false);
    expect(allowlistEntryValid('docker.io/library/alpine', k35.kep2535ImageNames)).toBe(true);
    expect(allowlistEntryValid('alpine', k37.kep2535ImageNames)).toBe(true);
    expect(allowlistEntryValid('docker.io/library/alpine', k37.kep2535ImageNames)).toBe(true);
    // Both refuse a tag and a wildcard in the middle.
    for (const names of [k35.kep2535ImageNames, k37.kep2535ImageNames]) {
      expect(allowlistEntryValid('test.io/test/image1:tagged', names)).toBe(false);
      expect(allowlistEntryValid('image.repo/*/imagename', names)).toBe(false);
    }
  });

  test('1.35 compares the image as written, tag included: an exact entry matches only an untagged image', () => {
    const names = k35.kep2535ImageNames;
    expect(allowlistMatches(['test.io/test/test-image'], 'test.io/test/test-image:tag', names)).toBe(false);
    expect(allowlistMatches(['test.io/test/test-image'], 'test.io/test/test-image', names)).toBe(true);
    expect(allowlistMatches(['docker.io/library/alpine'], 'alpine:3', names)).toBe(false);
    expect(allowlistMatches(['docker.io/library/*'], 'docker.io/library/alpine:3', names)).toBe(true);
    expect(allowlistMatches(['docker.io/library/*'], 'alpine:3', names)).toBe(false);
  });

  test('1.36+ cuts tag and digest and never normalises', () => {
    for (const names of [k36.kep2535ImageNames, k37.kep2535ImageNames]) {
      expect(allowlistMatches(['test.io/test/test-image'], 'test.io/test/test-image:tag', names)).toBe(true);
      expect(allowlistMatches(['alpine'], 'alpine:3', names)).toBe(true);
      expect(allowlistMatches(['docker.io/library/alpine'], 'alpine:3', names)).toBe(false);
      expect(allowlistMatches(['alpine'], 'docker.io/library/alpine:3', names)).toBe(false);
    }
  });

  test("a record's credentialMapping key: normalised before the fix, as written after", () => {
    expect(recordImageName('alpine:3', k35.kep2535ImageNames)).toBe('docker.io/library/alpine');
    expect(recordImageName('alpine:3', k37.kep2535ImageNames)).toBe('alpine');
    expect(recordImageName('reg.test:5000/team/app:v1', k35.kep2535ImageNames)).toBe('reg.test:5000/team/app');
  });

  test('a first pull records the key of its minor; the other spelling then finds it on 1.35 only', () => {
    const pod: PodCredentials = {
      namespace: 'a',
      secrets: [{ name: 'regcred', uid: 'u1', auths: { 'docker.io': { username: 'u', password: 'p', works: true } } }],
    };
    const first = (kubelet: typeof k35) =>
      ensureImageExists({
        kubelet,
        image: 'alpine:3',
        pullPolicy: 'IfNotPresent',
        node: { present: false, imageRef: 'sha256:cfg' },
        pod,
      });
    expect(Object.keys(first(k35).node.record!.credentialMapping)).toEqual(['docker.io/library/alpine']);
    expect(Object.keys(first(k37).node.record!.credentialMapping)).toEqual(['alpine']);
    const again = (kubelet: typeof k35) =>
      ensureImageExists({
        kubelet,
        image: 'docker.io/library/alpine:3',
        pullPolicy: 'Never',
        node: first(kubelet).node,
        pod,
      });
    expect(again(k35).outcome).toBe('Running');
    expect(again(k37).outcome).toBe('ErrImageNeverPull');
  });
});

describe('serviceAccountPullRecords (k/k #132771)', () => {
  test('1.34 on records the SA; 1.33 records an SA-mode pull as nodePodsAccessible', () => {
    expect([33, 34, 35, 36, 37].map((m) => behaviourFor(`1.${m}`).serviceAccountPullRecords)).toEqual([
      false,
      true,
      true,
      true,
      true,
    ]);
    const pull = (minor: number) =>
      ensureImageExists({
        kubelet: kubeletOfMinor(minor),
        image: 'reg.test/sa/app:v1',
        pullPolicy: 'IfNotPresent',
        node: { present: false, imageRef: 'sha256:cfg' },
        pod: {
          namespace: 'ns',
          serviceAccount: { name: 'sa-a', uid: 'uid-a' },
          secrets: [],
          providers: [
            {
              name: 'sa',
              matchImages: ['reg.test/sa'],
              auths: { 'reg.test': { username: 'u', password: 'p', works: true } },
              serviceAccountMode: true,
            },
          ],
        },
      }).node.record!.credentialMapping['reg.test/sa/app'];
    expect(pull(37)).toEqual({ kubernetesServiceAccounts: [{ uid: 'uid-a', namespace: 'ns', name: 'sa-a' }] });
    expect(pull(33)).toEqual({ nodePodsAccessible: true });
  });
});

describe('pulledRecordLookup and the runtime (k/k #135369, #136498, #136558, #137024)', () => {
  const ids = { id: 'sha256:config', repoDigest: 'reg.test/app@sha256:manifest' };

  test('every modelled minor looks records up by the image ID; containerd writes them under it', () => {
    expect([33, 34, 35, 36, 37, 38].every((m) => behaviourFor(`1.${m}`).pulledRecordLookup === 'image-id')).toBe(true);
    expect(recordKeys(k37, CONTAINERD_PULL_REF, ids)).toMatchObject({
      writtenUnder: 'sha256:config',
      lookedUpUnder: 'sha256:config',
      found: true,
    });
  });

  test('a runtime answering PullImage with the repo digest, or a repo-digest lookup, loses the record', () => {
    expect(recordKeys(k37, 'repo-digest', ids)).toMatchObject({ found: false, writtenUnder: ids.repoDigest });
    expect(recordKeys({ ...k37, pulledRecordLookup: 'repo-digest' }, CONTAINERD_PULL_REF, ids).found).toBe(false);
  });
});

describe('pullRecordApiVersion', () => {
  test('v1alpha1 in 1.33–1.34, v1beta1 from 1.35, read from the table', () => {
    expect(recordApiVersion(34)).toBe('kubelet.config.k8s.io/v1alpha1');
    expect(recordApiVersion(35)).toBe('kubelet.config.k8s.io/v1beta1');
    expect(recordApiVersion(38)).toBe('kubelet.config.k8s.io/v1beta1');
  });
});
