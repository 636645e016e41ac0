// An image volume's pull goes through the container image path: providers, the pod's SA token,
// KEP-2535 records; the gate and the pull policy default per the version table and API defaults.
import { describe, expect, test } from '@jest/globals';
import { behaviourFor } from '../versions/table.ts';
import { defaultVolumePullPolicy, imageVolumePull, type ImageVolumeCase } from './image-volume.ts';
import type { PodCredentials, PodProvider } from './ensure-secret-pulled.ts';

const HOST = 'reg.test:5000';
const REF = `${HOST}/team/data:v1`;
const right = { username: 'u', password: 'p', works: true };
const saProvider: PodProvider = {
  name: 'sa',
  matchImages: [HOST],
  auths: { [HOST]: right },
  serviceAccountMode: true,
};
const pod = (p: Partial<PodCredentials> = {}): PodCredentials => ({
  namespace: 'ns',
  serviceAccount: { name: 'puller', uid: 'sa-1' },
  secrets: [],
  providers: [saProvider],
  ...p,
});
const volume = (minor: number, c: Partial<ImageVolumeCase> = {}): ImageVolumeCase => ({
  kubelet: behaviourFor(`1.${minor}`),
  reference: REF,
  node: { present: false, imageRef: 'sha256:cfg' },
  pod: pod(),
  ...c,
});

describe('image volumes', () => {
  test.each([
    ['x', 'Always'],
    ['x:latest', 'Always'],
    ['x:v1', 'IfNotPresent'],
    ['x@sha256:' + 'a'.repeat(64), 'IfNotPresent'],
    ['x:latest@sha256:' + 'a'.repeat(64), 'Always'],
  ])('pullPolicy of %s defaults to %s', (ref, want) => {
    expect(defaultVolumePullPolicy(ref)).toBe(want);
  });

  test('off by default before 1.35: nothing is pulled', () => {
    expect(imageVolumePull(volume(34))).toMatchObject({ gate: false });
    expect(imageVolumePull(volume(34)).ensure).toBeUndefined();
  });

  test.each([35, 36, 37, 38])(
    '1.%i: the SA-mode provider runs for the volume with the pod’s own service account, and the pull is recorded',
    (minor) => {
      const p = imageVolumePull(volume(minor));
      expect(p).toMatchObject({
        gate: true,
        pullPolicy: 'IfNotPresent',
        eventsOn: 'pod',
        tokenFor: { namespace: 'ns', name: 'puller' },
      });
      expect(p.ensure).toMatchObject({ outcome: 'Running', pull: true, providersInvoked: ['sa'], recordWritten: true });
      expect(p.ensure!.node.record!.credentialMapping[REF.replace(':v1', '')]).toEqual({
        kubernetesServiceAccounts: [{ uid: 'sa-1', namespace: 'ns', name: 'puller' }],
      });
    },
  );

  test("a second pod's volume of another service account must authenticate; Never refuses it", () => {
    const first = imageVolumePull(volume(37)).ensure!;
    const other = pod({ serviceAccount: { name: 'other', uid: 'sa-2' }, providers: [] });
    expect(imageVolumePull(volume(37, { node: first.node, pod: other })).ensure).toMatchObject({
      check: 'mustAuthenticate',
      pull: true,
      outcome: 'ErrImagePull',
    });
    expect(imageVolumePull(volume(37, { node: first.node, pod: other, pullPolicy: 'Never' })).ensure).toMatchObject({
      outcome: 'ErrImageNeverPull',
      event: { reason: 'ErrImageNeverPull' },
    });
  });
});

describe('where a failed image volume pull shows (IV-EVENTS-ON-POD)', () => {
  test('the pull events are on the pod; each container mounting it gets Failed "Error: <the error>"', () => {
    const p = imageVolumePull(volume(37, { pullPolicy: 'Never' }));
    expect(p.eventsOn).toBe('pod');
    expect(p.containerEvent).toEqual({ reason: 'Failed', message: 'Error: ErrImageNeverPull' });
    expect(imageVolumePull(volume(37)).containerEvent).toBeUndefined();
  });
});
