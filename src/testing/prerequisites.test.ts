import { describe, test, expect } from '@jest/globals';
import { all, inCI } from './prerequisites.ts';

describe('prerequisites', () => {
  test('all() joins the reasons of every missing prerequisite', () => {
    expect(all({ ok: true }, { ok: false, reason: 'no docker-registry' }, { ok: false, reason: 'not root' })).toEqual({
      ok: false,
      reason: 'no docker-registry; not root',
    });
  });
  test('CI is recognised from CI=true or CI=1', () => {
    expect(inCI({ CI: 'true' })).toBe(true);
    expect(inCI({ CI: '1' })).toBe(true);
    expect(inCI({})).toBe(false);
  });
});
