import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type { V1Pod, V1PodList } from '@kubernetes/client-node';
import { TimeoutError } from '../core/errors.ts';
import { podAt, startFakeApiServer, type FakeApiServer, type WatchStream } from '../testing/fake-apiserver.ts';
import { useTempDir } from '../testing/tmp.ts';
import { closeKubeApis, kubeApi, type KubeApi } from './api.ts';
import { watchUntil, type Change } from './watch.ts';

const tmp = useTempDir('credprov-watch-');
let fake: FakeApiServer;
let api: KubeApi;

beforeAll(async () => {
  fake = await startFakeApiServer();
  api = await kubeApi({ kubeconfig: await fake.writeKubeconfig(tmp()) });
});
afterAll(async () => {
  await closeKubeApis();
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

/** Waits for the pod's container to terminate, as pods.ts does, recording every state it was shown. */
function untilTerminated(timeoutMs = 5000, seen: Array<Change<V1Pod>['type']> = []): Promise<number> {
  return watchUntil<V1Pod, number>(
    api,
    {
      what: 'pod default/p to terminate',
      list: async () => {
        const l = (await api.core.listNamespacedPod({
          namespace: 'default',
          fieldSelector: 'metadata.name=p',
        })) as V1PodList;
        return { items: l.items, resourceVersion: l.metadata?.resourceVersion };
      },
      path: '/api/v1/namespaces/default/pods',
      query: { fieldSelector: 'metadata.name=p' },
      decode: (o) => api.decode<V1Pod>(o, 'V1Pod'),
      timeoutMs,
    },
    (c) => {
      seen.push(c.type);
      if (c.type === 'DELETED') throw new Error('pod default/p was deleted');
      return c.object.status?.containerStatuses?.[0]?.state?.terminated?.exitCode;
    },
  );
}

const waiting = { waiting: { reason: 'ContainerCreating' } };
const terminated = { terminated: { exitCode: 0, reason: 'Completed' } };

describe('watchUntil', () => {
  test('answers from the list when the object is already there in the awaited state, without opening a watch', async () => {
    fake.podList = () => ({ items: [podAt('7', terminated)], resourceVersion: '7' });
    await expect(untilTerminated()).resolves.toBe(0);
    expect(fake.requests.some((r) => r.includes('watch=true'))).toBe(false);
  });

  test("watches from the list's resourceVersion, with bookmarks, and answers on the event that settles it", async () => {
    fake.podList = () => ({ items: [podAt('10', waiting)], resourceVersion: '10' });
    const watches: WatchStream[] = [];
    fake.onWatch = (w) => {
      watches.push(w);
      w.send('MODIFIED', podAt('11', waiting));
      setTimeout(() => w.send('MODIFIED', podAt('12', terminated)), 20);
    };
    const seen: string[] = [];
    await expect(untilTerminated(5000, seen as never)).resolves.toBe(0);
    expect(seen).toEqual(['LISTED', 'MODIFIED', 'MODIFIED']);
    expect(watches).toHaveLength(1);
    expect(watches[0]!.query.get('resourceVersion')).toBe('10');
    expect(watches[0]!.query.get('allowWatchBookmarks')).toBe('true');
    expect(watches[0]!.query.get('fieldSelector')).toBe('metadata.name=p');
    // Answered: the watch is closed, not left to hold a socket.
    await watches[0]!.closed;
  });

  test('reopens a watch the server ended from the last resourceVersion it saw, bookmarks included', async () => {
    fake.podList = () => ({ items: [podAt('20', waiting)], resourceVersion: '20' });
    const watches: WatchStream[] = [];
    fake.onWatch = (w) => {
      watches.push(w);
      if (watches.length === 1) {
        w.send('MODIFIED', podAt('21', waiting));
        w.send('BOOKMARK', { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '25' } });
        setTimeout(() => w.end(), 10);
      } else w.send('MODIFIED', podAt('26', terminated));
    };
    await expect(untilTerminated()).resolves.toBe(0);
    expect(watches.map((w) => w.query.get('resourceVersion'))).toEqual(['20', '25']);
    expect(
      fake.requests.filter((r) => r.startsWith('GET /api/v1/namespaces/default/pods?') && !r.includes('watch=true')),
    ).toHaveLength(1);
  });

  test('starts over with a fresh list when the watch says 410 Gone (resourceVersion too old)', async () => {
    let lists = 0;
    fake.podList = () =>
      ++lists === 1
        ? { items: [podAt('30', waiting)], resourceVersion: '30' }
        : { items: [podAt('40', terminated)], resourceVersion: '40' };
    fake.onWatch = (w) => {
      w.send('ERROR', {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 410,
        reason: 'Expired',
        message: 'too old resource version: 30 (35)',
      });
      w.end();
    };
    await expect(untilTerminated()).resolves.toBe(0);
    expect(lists).toBe(2);
  });

  test('honours its time limit while the watch is silent, says what it waited for, and closes the watch', async () => {
    fake.podList = () => ({ items: [podAt('50', waiting)], resourceVersion: '50' });
    let watch: WatchStream | undefined;
    fake.onWatch = (w) => {
      watch = w;
    };
    const t0 = Date.now();
    const err = await untilTerminated(300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toBe('pod default/p to terminate: no outcome within 0s');
    expect(Date.now() - t0).toBeLessThan(2000);
    await watch!.closed;
  });

  test('ends with the error the step throws (the pod went away), closing the watch', async () => {
    fake.podList = () => ({ items: [podAt('60', waiting)], resourceVersion: '60' });
    let watch: WatchStream | undefined;
    fake.onWatch = (w) => {
      watch = w;
      w.send('DELETED', podAt('61', waiting));
    };
    await expect(untilTerminated()).rejects.toThrow('pod default/p was deleted');
    await watch!.closed;
  });

  test("a watch the API server refuses (403) fails at once with the API server's words", async () => {
    fake.podList = () => ({ items: [podAt('70', waiting)], resourceVersion: '70' });
    fake.route = (req, res, url) => {
      if (url.searchParams.get('watch') !== 'true') return false;
      res.writeHead(403, { 'content-type': 'application/json' }).end('{}');
      return true;
    };
    try {
      await expect(untilTerminated()).rejects.toThrow(/^watch \/api\/v1\/namespaces\/default\/pods: .*HTTP 403/);
    } finally {
      fake.route = () => false;
    }
  });
});
