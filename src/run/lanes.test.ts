import { describe, expect, test } from '@jest/globals';
import { drainOnLanes, laneEnvironmentName, queueOrder } from './lanes.ts';

describe('queueOrder', () => {
  test('longest first; a suite that waits for a build the run started goes last', () => {
    const order = queueOrder([
      { name: 'smoke' },
      { name: 'downgrade', waitsForBuild: true },
      { name: 'cache' },
      { name: 'ensure-secret-pulled-images' },
      { name: 'unknown-suite' },
    ]).map((s) => s.name);
    expect(order).toEqual(['ensure-secret-pulled-images', 'unknown-suite', 'cache', 'smoke', 'downgrade']);
  });
});

describe('laneEnvironmentName', () => {
  test("the first lane is the run's own environment; the others carry their number within 40 characters", () => {
    expect(laneEnvironmentName('default', 0)).toBe('default');
    expect(laneEnvironmentName('default', 1)).toBe('default-2');
    const long = 'x'.repeat(40);
    expect(laneEnvironmentName(long, 1)).toHaveLength(40);
    expect(laneEnvironmentName(long, 1).endsWith('-2')).toBe(true);
  });
});

describe('drainOnLanes', () => {
  test('a free lane takes the next item; every item runs once', async () => {
    const log: string[] = [];
    // The long item ends only once the short ones have: the order is the queue's, whatever the load.
    let shortDone = 0;
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    await drainOnLanes(['long', 'a', 'b', 'c'], 2, async (item, lane) => {
      log.push(`${lane}:${item}`);
      if (item === 'long') return released;
      await new Promise((r) => setTimeout(r, 1));
      if (++shortDone === 3) release();
    });
    expect(log).toEqual(['0:long', '1:a', '1:b', '1:c']);
  });

  test('no more lanes than items', async () => {
    const lanes = new Set<number>();
    await drainOnLanes([1], 4, async (_x, lane) => void lanes.add(lane));
    expect([...lanes]).toEqual([0]);
  });
});
