// A ServiceAccount recreated (new UID) or re-annotated, on the cache, token and KEP-2535 models.
import { describe, expect, test } from '@jest/globals';
import { behaviourFor } from '../versions/table.ts';
import { recreated, tokenAfterRecreate } from './service-account-recreate.ts';
import {
  ServiceAccountTokenModel,
  type PluginAnswer,
  type PodState,
  type ServiceAccountState,
} from './service-account-token.ts';
import { ensureImageExists, type PodCredentials, type PodProvider } from './ensure-secret-pulled.ts';

const HOST = 'reg.test:5000';
const IMAGE = `${HOST}/team/app`;
const sa: ServiceAccountState = { name: 'puller', uid: 'uid-old', annotations: { 'example.com/role': 'reader' } };
const answer: PluginAnswer = {
  cacheKeyType: 'Registry',
  cacheDurationMs: 600_000,
  password: 'static',
  registryAccepts: true,
};
const model = (minor = 37) =>
  new ServiceAccountTokenModel({
    provider: {
      name: 'sa',
      defaultCacheDurationMs: 0,
      tokenAttributes: {
        serviceAccountTokenAudience: 'registry.test',
        cacheType: 'ServiceAccount',
        requireServiceAccount: true,
        optionalServiceAccountAnnotationKeys: ['example.com/role'],
      },
    },
    behaviour: behaviourFor(`1.${minor}`),
    grants: [{ audience: 'registry.test' }],
  });
const podOf = (name: string, s: ServiceAccountState): PodState => ({
  namespace: 'ns',
  name,
  uid: `uid-${name}`,
  serviceAccount: s,
});

describe('a recreated or re-annotated service account', () => {
  test('the credential cache misses for the new UID and for a changed passed annotation', () => {
    const m = model();
    expect(m.pull(podOf('a', sa), IMAGE, answer).invoked).toBe(true);
    expect(m.pull(podOf('b', sa), IMAGE, answer).cache).toBe('hit');
    expect(m.pull(podOf('c', recreated(sa, 'uid-new')), IMAGE, answer)).toMatchObject({ cache: 'miss', invoked: true });
    const admin = { ...sa, annotations: { 'example.com/role': 'admin' } };
    expect(m.pull(podOf('d', admin), IMAGE, answer)).toMatchObject({
      cache: 'miss',
      annotations: { 'example.com/role': 'admin' },
    });
  });

  test('the token: a new pod gets the new SA’s; the same pod too from 1.34, the old one on 1.33', () => {
    expect(tokenAfterRecreate(behaviourFor('1.37'), false)).toMatchObject({ uid: 'new', accepted: true });
    expect(tokenAfterRecreate(behaviourFor('1.34'), true)).toMatchObject({ uid: 'new', accepted: true });
    expect(tokenAfterRecreate(behaviourFor('1.33'), true)).toMatchObject({ uid: 'old', accepted: false });
  });

  test('KEP-2535: the recreated SA is not the recorded one; a new annotation under the same UID still is', () => {
    const provider: PodProvider = {
      name: 'sa',
      matchImages: [HOST],
      auths: { [HOST]: { username: 'u', password: 'p', works: true } },
      serviceAccountMode: true,
    };
    const pod = (uid: string, works = true): PodCredentials => ({
      namespace: 'ns',
      serviceAccount: { name: 'puller', uid },
      secrets: [],
      providers: [{ ...provider, auths: { [HOST]: { username: 'u', password: 'p', works } } }],
    });
    const first = ensureImageExists({
      image: `${IMAGE}:v1`,
      pullPolicy: 'IfNotPresent',
      node: { present: false, imageRef: 'sha256:c' },
      pod: pod('uid-old'),
    });
    const node = first.node;
    expect(ensureImageExists({ image: `${IMAGE}:v1`, pullPolicy: 'Never', node, pod: pod('uid-new') })).toMatchObject({
      outcome: 'ErrImageNeverPull',
      check: 'mustAuthenticate',
      providersInvoked: ['sa'],
    });
    const again = ensureImageExists({ image: `${IMAGE}:v1`, pullPolicy: 'IfNotPresent', node, pod: pod('uid-new') });
    expect(again).toMatchObject({ pull: true, outcome: 'Running', recordWritten: true });
    expect(again.node.record!.credentialMapping[IMAGE]!.kubernetesServiceAccounts!.map((s) => s.uid)).toEqual([
      'uid-new',
      'uid-old',
    ]);
    // Same UID, a role whose credentials the registry would refuse: still allowed, without a pull.
    expect(
      ensureImageExists({ image: `${IMAGE}:v1`, pullPolicy: 'Never', node, pod: pod('uid-old', false) }),
    ).toMatchObject({
      outcome: 'Running',
      check: 'credentialRecordFound',
      pull: false,
    });
  });

  test('recreated() insists on a new UID', () => {
    expect(() => recreated(sa, 'uid-old')).toThrow(/new UID/);
  });
});
