import { expect, test } from '@jest/globals';
import { PartsInOrder } from './parts-in-order.ts';

test('a part that broke leaves every later part unplayed, and what it should have left names it', async () => {
  const story = new PartsInOrder();
  expect(await story.play('first', async () => 1)).toBe(1);
  await expect(
    story.play('second', async () => {
      throw new Error('kubelet did not come back');
    }),
  ).rejects.toThrow('kubelet did not come back');
  await expect(story.play('third', async () => 3)).rejects.toThrow('not run: second broke (kubelet did not come back)');
  expect(() => story.need(undefined, 'the third part')).toThrow('not run: second broke');
  expect(() => new PartsInOrder().need(undefined, 'the first part')).toThrow('not run: the first part was not played');
  expect(story.need(5, 'a value')).toBe(5);
});
