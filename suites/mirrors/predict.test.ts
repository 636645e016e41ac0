import { describe, expect, test } from '@jest/globals';
import { CASES, MIRROR_NAMED_PROVIDER, PROVIDER, type MirrorCase, type Topology } from './plan.ts';
import { crossingsOf, predictCase } from './predict.ts';

const t: Topology = {
  origin: '127.0.0.5:6001',
  replica: '127.0.0.6:6002',
  refuses: '127.0.0.7:6003',
  lacks: '127.0.0.8:6004',
  down: '127.0.0.1:1',
  user: 'mirrors-origin',
};
const DIGEST = `sha256:${'a'.repeat(64)}`;
const of = (id: string): MirrorCase => CASES.find((c) => c.id === id)!;
const predict = (id: string) => predictCase(of(id), t, DIGEST);

describe('mirrors predictions', () => {
  test('a replica mirror gets the provider login and serves; the origin is never asked', () => {
    const p = predict('A-PROVIDER');
    expect(p.value).toEqual({ pull: 'success', seen: { replica: ['none', 'origin account'] }, execd: [PROVIDER] });
    expect(p.crossed).toEqual(['origin account → replica']);
  });

  test('the pull-secret login crosses the same way, with no provider exec', () => {
    const p = predict('A-SECRET');
    expect(p.value).toEqual({ pull: 'success', seen: { replica: ['none', 'origin account'] }, execd: [] });
    expect(p.crossed).toEqual(['origin account → replica']);
  });

  test('401 and 404 mirrors see the login, then the origin serves; a down mirror sees nothing', () => {
    for (const [id, role] of [
      ['B-401', 'refuses'],
      ['B-404', 'lacks'],
    ] as const) {
      const p = predict(id);
      expect(p.value.pull).toBe('success');
      expect(p.value.seen).toEqual({ [role]: ['none', 'origin account'], origin: ['none', 'origin account'] });
      expect(p.crossed).toEqual([`origin account → ${role}`]);
    }
    const down = predict('B-DOWN');
    expect(down.value.seen).toEqual({ origin: ['none', 'origin account'] });
    expect(down.crossed).toEqual([]);
  });

  test("a provider naming the mirror's host is never exec'd: anonymous, refused everywhere", () => {
    const p = predict('C-MIRROR-NAMED');
    expect(p.value).toEqual({ pull: 'failure', seen: { replica: ['none'], origin: ['none'] }, execd: [] });
    expect(p.value.execd).not.toContain(MIRROR_NAMED_PROVIDER);
    expect(p.crossed).toEqual([]);
  });

  test('server = the replica: the login goes there (no fallback)', () => {
    const p = predict('D-SERVER');
    expect(p.value.seen).toEqual({ replica: ['none', 'origin account'] });
    expect(p.crossed).toEqual(['origin account → replica']);
  });

  test('a pull-only mirror resolves a digest but not a tag; both fetch from it', () => {
    expect(predict('E-DIGEST').value.seen).toEqual({ replica: ['none', 'origin account'] });
    const byTag = predict('E-TAG');
    expect(byTag.value.seen).toEqual({ origin: ['none', 'origin account'], replica: ['none', 'origin account'] });
    expect(byTag.because).toContain(`resolve ${t.origin}: ok, fetch ${t.replica}: ok`);
  });

  test('an observation names its crossings the way the prediction does', () => {
    expect(crossingsOf({ origin: ['origin account'], refuses: ['none', 'origin account'] })).toEqual([
      'origin account → refuses',
    ]);
    expect(crossingsOf({ replica: ['none'] })).toEqual([]);
  });
});
