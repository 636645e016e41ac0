import { expect, test } from '@jest/globals';
import { mapPool } from './pool.ts';

test('mapPool keeps order, bounds concurrency and lets every item settle', async () => {
  let running = 0;
  let most = 0;
  const settled = await mapPool([30, 10, 20, 5, 15], 2, async (ms, i) => {
    running++;
    most = Math.max(most, running);
    await new Promise((r) => setTimeout(r, ms));
    running--;
    if (i === 1) throw new Error('item 1 broke');
    return ms * 2;
  });
  expect(most).toBe(2);
  expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
    60,
    'item 1 broke',
    40,
    10,
    30,
  ]);
});

test('mapPool of nothing is nothing', async () => {
  await expect(mapPool([], 4, async () => 1)).resolves.toEqual([]);
});
