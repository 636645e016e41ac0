import { expect, test } from '@jest/globals';
import { since } from './window.ts';

test('a window on a growing log gives what it gained since it opened, as often as asked', async () => {
  const log = ['a', 'b'];
  const w = await since(async () => [...log]);
  expect(await w.added()).toEqual([]);
  log.push('c', 'd');
  expect(await w.added()).toEqual(['c', 'd']);
  log.push('e');
  expect(await w.added()).toEqual(['c', 'd', 'e']);
});
