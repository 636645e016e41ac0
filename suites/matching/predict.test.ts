// The matching suite's plan against the oracle it is judged by: each check's
// images are predicted as its title says (which providers the kubelet execs,
// in what order, and whether the pull works), every provider of the config is
// asked about by some check, and every check has images.
import { describe, expect, test } from '@jest/globals';
import { normalizeImage } from '../../src/matching/image.ts';
import { predictImage } from '../../src/run/kit.ts';
import { MATCHING_CHECKS } from './checks.ts';
import { MATCHING_ANSWERS, MATCHING_CASES, MATCHING_CONFIG } from './plan.ts';

const KUBE = 'v1.37.1';
const DIGEST = `sha256:${'a'.repeat(64)}`;

/** The oracle's verdict on each of a check's images: the providers exec'd in order, and the pull. */
function predicted(checkId: string): Record<string, string> {
  const c = MATCHING_CASES.find((x) => x.check.id === checkId)!;
  return Object.fromEntries(
    c.images.map((i) => {
      const ref = i.byDigest ? `${i.ref}@${DIGEST}` : i.ref;
      const p = predictImage(MATCHING_CONFIG, normalizeImage(ref), KUBE, MATCHING_ANSWERS);
      const invoked = p.providers.filter((x) => x.invoked).map((x) => x.name);
      return [i.ref, `${invoked.join(' → ') || 'none'}; pull ${p.pull}`];
    }),
  );
}

describe('the matching plan, as the oracle predicts it', () => {
  test('every check has images, and every provider is asked about by some image', () => {
    expect(MATCHING_CASES.map((c) => c.check.id).sort()).toEqual(MATCHING_CHECKS.map((c) => c.id).sort());
    expect(MATCHING_CASES.every((c) => c.images.length > 0)).toBe(true);
    const asked = new Set(
      MATCHING_CASES.flatMap((c) => c.images).flatMap((i) =>
        predictImage(MATCHING_CONFIG, normalizeImage(i.byDigest ? `${i.ref}@${DIGEST}` : i.ref), KUBE, {})
          .providers.filter((x) => x.invoked)
          .map((x) => x.name),
      ),
    );
    // The two patterns that never match, by design: index.docker.io (MATCH-DOCKER-IO) and a path glob (MATCH-PATH-PREFIX).
    expect(MATCHING_CONFIG.providers.map((p) => p.name).filter((n) => !asked.has(n))).toEqual([
      'path-glob',
      'dockerhub-index',
    ]);
  });

  test('a host glob matches within one DNS label, and another label count never matches', () => {
    expect(predicted('MATCH-HOST-GLOB')).toEqual({
      'a.glob.match.test/app:v1': 'glob-one-label; pull success',
      'a.b.glob.match.test/app:v1': 'glob-two-labels; pull success',
    });
    expect(Object.values(predicted('MATCH-LABEL-COUNT'))).toEqual(['none; pull failure', 'none; pull failure']);
  });

  test('ports must be equal as written, and :443 is not the default', () => {
    expect(predicted('MATCH-PORT')).toEqual({
      'port.match.test:5000/app:v1': 'port-5000; pull success',
      'port.match.test:5001/app:v1': 'none; pull failure',
      'port.match.test/app:v1': 'none; pull failure',
      'noport.match.test/app:v1': 'no-port; pull success',
      'noport.match.test:5000/app:v1': 'none; pull failure',
      'noport.match.test:443/app:v1': 'none; pull failure',
    });
  });

  test('a path is a raw string prefix, and * in a path is literal', () => {
    expect(predicted('MATCH-PATH-PREFIX')).toEqual({
      'path.match.test/team/app:v1': 'path-team → path-team-slash; pull success',
      'path.match.test/teamx/app:v1': 'path-team; pull success',
      'path.match.test/other/app:v1': 'none; pull failure',
      'pathglob.match.test/app:v1': 'none; pull failure',
    });
  });

  test("every matching provider is exec'd in config order; a wrong credential beside a right one still pulls", () => {
    expect(predicted('MATCH-ORDER')).toEqual({ 'order.match.test/app:v1': 'zz-order → aa-order; pull success' });
    expect(predicted('MATCH-WRONG-AND-RIGHT')).toEqual({
      'creds.match.test/app:v1': 'creds-wrong → creds-right; pull success',
    });
  });

  test('credentials under an auth key that does not cover the image leave the pull anonymous', () => {
    expect(predicted('MATCH-AUTH-KEY-COVERS-IMAGE')).toEqual({
      'authkey.match.test/app:v1': 'authkey-elsewhere; pull failure',
    });
  });

  test('docker.io names are normalised, index.docker.io never matches, a digest is requested as its repository', () => {
    expect(predicted('MATCH-DOCKER-IO')).toEqual({
      'credprov-match-probe:v1': 'dockerhub → dockerhub-library; pull success',
      'index.docker.io/credprovtest/probe:v1': 'dockerhub; pull success',
    });
    expect(predicted('MATCH-DIGEST')).toEqual({ 'digest.match.test/app': 'digest; pull success' });
  });
});
