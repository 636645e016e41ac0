import { describe, expect, test } from '@jest/globals';
import { lateTestNeeds, testBuilds } from '../src/cli/test-builds.ts';
import { endedBuilds, nextBatch, pathPattern, projectOf } from './late-tests.ts';

describe('a late-test lane', () => {
  const pending = () =>
    new Map([
      ['test/e2e/kind.e2e.test.ts', ['kubeadm', 'etcd', 'kind CLI']],
      ['test/e2e/suites-local-skew.e2e.test.ts', ['kubelet 1.34']],
      ['test/e2e/vendor-gke.e2e.test.ts', ['gke-gcloud-auth-plugin']],
    ]);

  test('runs the files whose builds have all ended, and names what the others wait for', () => {
    const ended = new Set(['kubeadm', 'etcd', 'kind CLI', 'kubelet 1.36']);
    expect(nextBatch({ pending: pending(), ended, allEnded: false })).toEqual({
      ready: ['test/e2e/kind.e2e.test.ts'],
      waitingFor: ['kubelet 1.34', 'gke-gcloud-auth-plugin'],
    });
  });

  test('nothing ready: nothing runs; every late build ended (one failed, say): everything pending runs', () => {
    expect(nextBatch({ pending: pending(), ended: new Set(), allEnded: false }).ready).toEqual([]);
    expect(nextBatch({ pending: pending(), ended: new Set(['etcd']), allEnded: true }).ready).toHaveLength(3);
  });

  test('the timings file: every line names a build that ended, failed or not', () => {
    expect([...endedBuilds('kubeadm\t1\t2\tok\nkubelet 1.34\t1\t3\tfailed\n\n')]).toEqual(['kubeadm', 'kubelet 1.34']);
  });

  test('the path pattern matches exactly the files given, dots and all', () => {
    const re = new RegExp(pathPattern(['src/clients/field-probes.test.ts', 'test/e2e/kind.e2e.test.ts']));
    expect(re.test('/repo/src/clients/field-probes.test.ts')).toBe(true);
    expect(re.test('/repo/test/e2e/kind.e2e.test.ts')).toBe(true);
    expect(re.test('/repo/test/e2e/kindXe2e.test.ts')).toBe(false);
    expect(re.test('/repo/src/clients/field-probes.test.ts.bak')).toBe(false);
    expect(re.test('/repo/other/test/e2e/kind.e2e.test.ts.snap')).toBe(false);
  });

  test('every late file falls in one of the two projects, as jest.config.js sorts them', () => {
    for (const f of lateTestNeeds(testBuilds()).keys())
      expect({ f, project: projectOf(f) }).toEqual({
        f,
        project: /^test\/e2e\/.*\.e2e\.test\.ts$/.test(f) ? 'e2e' : 'unit',
      });
  });
});
