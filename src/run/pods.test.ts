import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ApiError, closeKubeApis, type ApiTarget } from '../cluster/api.ts';
import { TimeoutError } from '../core/errors.ts';
import { eventAt, podAt, startFakeApiServer, type FakeApiServer } from '../testing/fake-apiserver.ts';
import { useTempDir } from '../testing/tmp.ts';
import { podOutcome, waitForPodEvents, waitForPodOutcome, watchPod, type PodEvent } from './pods.ts';

const tmp = useTempDir('credprov-pods-');
let fake: FakeApiServer;
let target: ApiTarget;

beforeAll(async () => {
  fake = await startFakeApiServer();
  target = { kubeconfig: await fake.writeKubeconfig(tmp()) };
});
afterAll(async () => {
  await closeKubeApis();
  await fake.close();
});

describe('podOutcome', () => {
  test("a terminated container is completed with its exit code; a refused pull is pull-failed with the kubelet's reason; anything else is no outcome yet", () => {
    const pod = (state: Record<string, unknown>) => ({
      status: { containerStatuses: [{ name: 'main', image: 'i', imageID: '', ready: false, restartCount: 0, state }] },
    });
    expect(podOutcome(pod({ terminated: { exitCode: 3 } }))).toMatchObject({ kind: 'completed', exitCode: 3 });
    expect(
      podOutcome(pod({ waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image' } })),
    ).toMatchObject({ kind: 'pull-failed', reason: 'ImagePullBackOff', message: 'Back-off pulling image' });
    expect(podOutcome(pod({ waiting: { reason: 'ContainerCreating' } }))).toBeUndefined();
    expect(podOutcome({})).toBeUndefined();
  });
});

describe('waitForPodOutcome', () => {
  test('learns of ErrImagePull from the watch as it happens', async () => {
    fake.podList = () => ({ items: [podAt('3', { waiting: { reason: 'ContainerCreating' } })], resourceVersion: '3' });
    fake.onWatch = (w) =>
      setTimeout(
        () => w.send('MODIFIED', podAt('4', { waiting: { reason: 'ErrImagePull', message: 'unauthorized' } })),
        30,
      );
    await expect(waitForPodOutcome(target, 'p', 5000)).resolves.toMatchObject({
      kind: 'pull-failed',
      reason: 'ErrImagePull',
      message: 'unauthorized',
    });
  });

  test('a pod that is not there fails at once with NotFound, as reading it did', async () => {
    fake.podList = () => ({ items: [], resourceVersion: '5' });
    const err = await waitForPodOutcome(target, 'p', 5000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ message: 'pod default/p not found', status: 404 });
  });

  test('a timeout names the pod, the limit, and the last phase and waiting reason seen', async () => {
    fake.podList = () => ({ items: [podAt('6', { waiting: { reason: 'ContainerCreating' } })], resourceVersion: '6' });
    fake.onWatch = () => {};
    const err = await waitForPodOutcome(target, 'p', 1000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toBe(
      'pod default/p neither completed nor failed its pull within 1s (phase Pending, ContainerCreating)',
    );
  });
});

describe('watchPod', () => {
  test('with mayNotExistYet, waits for a pod that appears later and outlives a deletion (a mirror pod made again)', async () => {
    fake.podList = () => ({ items: [], resourceVersion: '7' });
    fake.onWatch = (w) => {
      w.send('ADDED', podAt('8', { waiting: { reason: 'ContainerCreating' } }));
      w.send('DELETED', podAt('9', { waiting: { reason: 'ContainerCreating' } }));
      w.send('ADDED', podAt('10', { terminated: { exitCode: 0 } }));
    };
    await expect(watchPod(target, 'p', 'default', 5000, podOutcome, { mayNotExistYet: true })).resolves.toMatchObject({
      kind: 'completed',
      exitCode: 0,
    });
  });

  test('without it, a deletion ends the wait with NotFound', async () => {
    fake.podList = () => ({
      items: [podAt('11', { waiting: { reason: 'ContainerCreating' } })],
      resourceVersion: '11',
    });
    fake.onWatch = (w) => w.send('DELETED', podAt('12', { waiting: { reason: 'ContainerCreating' } }));
    await expect(watchPod(target, 'p', 'default', 5000, podOutcome)).rejects.toThrow(
      'pod default/p was deleted while the harness waited for it',
    );
  });
});

describe('waitForPodEvents', () => {
  test("watches the pod's events until the predicate holds; a repeated event keeps its place as its count grows", async () => {
    fake.eventList = () => ({
      items: [
        eventAt('20', 'p.1', 'Pulling', 'Pulling image "x"'),
        eventAt('21', 'p.2', 'Failed', 'Failed to pull image "x": 401 Unauthorized'),
      ],
      resourceVersion: '21',
    });
    let query: URLSearchParams | undefined;
    fake.onWatch = (w) => {
      query = w.query;
      w.send('MODIFIED', eventAt('22', 'p.1', 'Pulling', 'Pulling image "x"', { count: 2 }));
      setTimeout(
        () =>
          w.send(
            'MODIFIED',
            eventAt('23', 'p.2', 'Failed', 'Failed to pull image "x": 401 Unauthorized', { count: 2 }),
          ),
        20,
      );
    };
    const count = (events: PodEvent[], reason: string) =>
      events.filter((e) => e.reason === reason).reduce((n, e) => n + (e.count ?? 1), 0);
    const events = await waitForPodEvents(
      target,
      'p',
      'default',
      5000,
      (ev) => count(ev, 'Pulling') > 1 && count(ev, 'Failed') > 1,
      'to show a retried pull',
    );
    expect(events.map((e) => `${e.reason} x${e.count}`)).toEqual(['Pulling x2', 'Failed x2']);
    expect(query?.get('fieldSelector')).toBe('involvedObject.name=p');
    expect(query?.get('resourceVersion')).toBe('21');
  });
});
