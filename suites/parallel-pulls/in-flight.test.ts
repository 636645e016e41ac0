import { describe, expect, test } from '@jest/globals';
import type { FakeInvocation, RegistryRequest } from '../../src/run/kit.ts';
import { execsOfImages, mostAtOnce, pullsAtRegistry, readyToPull } from './in-flight.ts';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 29, 12) + ms).toISOString();
const req = (path: string, received: number, time: number): RegistryRequest => ({
  time: at(time),
  received: at(received),
  host: '127.0.0.1:5000',
  method: 'GET',
  path,
  status: 200,
  credential: 'pp',
  agent: 'containerd/v2',
});
const exec = (image: string, end: number, durationMs: number) =>
  ({ provider: 'credprov-pp-limit', image, time: at(end), durationMs }) as FakeInvocation;

describe('in flight', () => {
  test('the most spans at once; one ending as another starts does not overlap it', () => {
    const spans = [
      { key: 'a', from: 0, to: 10 },
      { key: 'b', from: 5, to: 15 },
      { key: 'c', from: 10, to: 20 },
      { key: 'd', from: 12, to: 13 },
    ];
    expect(mostAtOnce(spans)).toEqual({ most: 3, keys: ['b', 'c', 'd'] });
    expect(mostAtOnce([])).toEqual({ most: 0, keys: [] });
  });

  test("a pull at the registry: its repository's first request received to last answered", () => {
    const pulls = pullsAtRegistry(
      [
        req('/v2/pp/limit-1/manifests/v1', 100, 3100),
        req('/v2/pp/limit-1/blobs/sha256:aa', 3120, 3130),
        req('/v2/pp/limit-10/manifests/v1', 50, 60),
      ],
      ['pp/limit-1', 'pp/limit-2'],
    );
    expect(pulls).toEqual([{ key: 'pp/limit-1', from: Date.parse(at(100)), to: Date.parse(at(3130)) }]);
  });

  test('a pod is ready to pull from its exec answered before its pull to the end of that pull', () => {
    const lookups = execsOfImages(
      [exec('h/pp/limit-1', 90, 40), exec('h/pp/limit-2', 95, 40), exec('other/pp/limit-1', 10, 5)],
      'h',
      ['pp/limit-1', 'pp/limit-2'],
    );
    expect(lookups.map((s) => [s.key, s.to - s.from])).toEqual([
      ['pp/limit-1', 40],
      ['pp/limit-2', 40],
    ]);
    const pulls = [{ key: 'pp/limit-1', from: Date.parse(at(100)), to: Date.parse(at(3130)) }];
    expect(readyToPull(lookups, pulls)).toEqual([
      { key: 'pp/limit-1', from: Date.parse(at(90)), to: Date.parse(at(3130)) },
    ]);
  });
});
