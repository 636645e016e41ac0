// How a comparison's values split into steps, for the shapes suites use.
import { describe, expect, test } from '@jest/globals';
import { clausesOf, stepsOf } from './steps.ts';

const names = (predicted: unknown, observed: unknown) => stepsOf({ predicted, observed }).map((s) => s.name);

describe('stepsOf', () => {
  test('an object keyed by step: one step per key, the prediction’s order first, then keys only observed', () => {
    const steps = stepsOf({
      predicted: { beforeDowngrade: 'execs 1', afterDowngrade: 'execs 1' },
      observed: { beforeDowngrade: 'execs 1', afterDowngrade: 'execs 2', extra: true },
    });
    expect(steps).toEqual([
      { name: 'beforeDowngrade', predicted: 'execs 1', observed: 'execs 1', same: true },
      { name: 'afterDowngrade', predicted: 'execs 1', observed: 'execs 2', same: false },
      { name: 'extra', predicted: undefined, observed: true, same: false },
    ]);
  });

  test('an array of labelled elements: the label names the step, the rest is its value', () => {
    const pulls = (second: number) => [
      { label: 'first pull of a.img.cache.test/cache/one', execs: 1 },
      { label: 'same image again', execs: second },
    ];
    const steps = stepsOf({ predicted: pulls(0), observed: pulls(1) });
    expect(steps.map((s) => [s.name, s.predicted, s.observed, s.same])).toEqual([
      ['first pull of a.img.cache.test/cache/one', { execs: 1 }, { execs: 1 }, true],
      ['same image again', { execs: 0 }, { execs: 1 }, false],
    ]);
  });

  test('elements named by another string field (image), when it is unique on each side', () => {
    const v = [
      { image: 'app.down.test/app:v1', before: 'success', after: 'success' },
      { image: 'other.down.test/app:v1', before: 'success', after: 'failure' },
    ];
    expect(names(v, v)).toEqual(['app.down.test/app:v1', 'other.down.test/app:v1']);
  });

  test('"step: value" strings split at the first ": " when both sides name the same steps, even with ports in them', () => {
    const steps = stepsOf({
      predicted: ['port.match.test:5000/app:v1: invoked port-5000, pull success', 'port.match.test/app:v1: none'],
      observed: ['port.match.test:5000/app:v1: invoked port-5000, pull success', 'port.match.test/app:v1: none'],
    });
    expect(steps.map((s) => [s.name, s.predicted])).toEqual([
      ['port.match.test:5000/app:v1', 'invoked port-5000, pull success'],
      ['port.match.test/app:v1', 'none'],
    ]);
  });

  test('strings whose prefixes differ between the sides, or repeat, are numbered instead', () => {
    expect(names(['a: 1', 'b: 2'], ['a: 1', 'c: 2'])).toEqual(['#1', '#2']);
    expect(names(['a: 1', 'a: 2'], ['a: 1', 'a: 2'])).toEqual(['#1', '#2']);
    expect(names(['x', 'y'], ['x'])).toEqual(['#1', '#2']);
    expect(stepsOf({ predicted: ['x', 'y'], observed: ['x'] })[1]).toMatchObject({ observed: undefined, same: false });
  });

  test('a scalar, mixed shapes or two empty values: one step', () => {
    expect(stepsOf({ predicted: 3, observed: 4 })).toEqual([
      { name: 'outcome', predicted: 3, observed: 4, same: false },
    ]);
    expect(names('starts', { outcome: 'starts' })).toEqual(['outcome']);
    expect(names([], [])).toEqual(['outcome']);
  });

  test('a step is the same only when its values are deeply equal (NaN equals NaN)', () => {
    const [s] = stepsOf({ predicted: { t: { a: [1, NaN] } }, observed: { t: { a: [1, NaN] } } });
    expect(s!.same).toBe(true);
  });
});

describe('clausesOf', () => {
  test('a short reason stays one clause', () => {
    expect(clausesOf('config order; the first match wins')).toEqual(['config order; the first match wins']);
  });

  test('a long reason splits at "; " outside parentheses', () => {
    const because =
      'cache-image: cacheKeyType Image: first pull: exec (no live entry; stores key a for 300s); ' +
      'same image again: hit (cached under key a until +280s); another image: exec (no live entry; stores key b)';
    expect(clausesOf(because, 40)).toEqual([
      'cache-image: cacheKeyType Image: first pull: exec (no live entry; stores key a for 300s)',
      'same image again: hit (cached under key a until +280s)',
      'another image: exec (no live entry; stores key b)',
    ]);
  });

  test('" | " between steps wins over "; " inside a step', () => {
    expect(clausesOf('a: matches x; credentials of x apply | b: matches no provider; anonymous', 10)).toEqual([
      'a: matches x; credentials of x apply',
      'b: matches no provider; anonymous',
    ]);
  });
});
