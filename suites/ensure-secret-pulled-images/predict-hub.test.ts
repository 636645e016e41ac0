// The field-bug predictions per kubelet minor (hub.ts), from the model and the
// version table alone: what 1.35, 1.36 and 1.37 are expected to do with
// familiar Docker Hub names (k/k #137629), the cross-namespace story of
// #137024, and which ref the record is keyed by (#135369/#136558).
import { describe, expect, test } from '@jest/globals';
import { buildImage } from '../../src/run/kit.ts';
import { kubeletOfMinor } from '../../src/model/ensure-secret-pulled.ts';
import { cellView } from './predict.ts';
import {
  crossIds,
  hubAllowlist,
  hubPlan,
  predictAllow,
  predictAllowCells,
  predictCross,
  predictCrossViews,
  predictEntryValidation,
  type CrossNamespacePods,
} from './predict-hub.ts';

const base = buildImage({
  name: 'credprov/busybox',
  tag: 'v1',
  layers: [[{ type: 'file', path: 'bin/busybox', data: 'not really busybox' }]],
});
const plan = hubPlan('espi-abc123', base);
const right = { username: 'espi', password: 'right-password' };
const pods: CrossNamespacePods = {
  a: {
    namespace: 'ns-a',
    serviceAccount: { name: 'default', uid: 'uid-sa' },
    secrets: [{ name: 'regcred', uid: 'uid-regcred', auths: { 'docker.io': { ...right, works: true } } }],
  },
  b: { namespace: 'ns-b', secrets: [] },
};

describe('the plan', () => {
  test('familiar names, their normalised entries, distinct images', () => {
    expect(plan.cross.ref).toBe('espi-abc123-xns:v1');
    expect(plan.cross.full).toBe('docker.io/library/espi-abc123-xns:v1');
    expect(plan.allow.map((c) => [c.hub.ref, c.entry])).toEqual([
      ['espi-abc123-als:v1', 'espi-abc123-als'],
      ['espi-abc123-aln:v1', 'docker.io/library/espi-abc123-aln'],
      ['docker.io/library/espi-abc123-alf:v1', 'docker.io/library/espi-abc123-alf'],
      ['docker.io/library/espi-abc123-alu', 'docker.io/library/espi-abc123-alu'],
    ]);
    const ids = new Set([plan.cross, ...plan.allow.map((c) => c.hub)].map((h) => h.image.config.digest));
    expect(ids.size).toBe(5);
  });
});

describe('ESPI-ALLOWLIST-FAMILIAR-NAMES (k/k #137629)', () => {
  const allowFor = (minor: number) => {
    const kubelet = kubeletOfMinor(minor);
    const allowlist = ['reg.test:5000/espi-abc123/al/*', ...hubAllowlist(plan, kubelet)];
    const validation = predictEntryValidation(plan, kubelet);
    const cells = predictAllowCells(plan, kubelet, allowlist, { namespace: 'ns', secrets: [] });
    return { allowlist, prediction: predictAllow(plan, validation, cells, cellView).value };
  };

  test('1.35: the familiar entry is refused (left out), and only the untagged full name matches', () => {
    const { allowlist, prediction } = allowFor(35);
    expect(allowlist).not.toContain('espi-abc123-als');
    expect(prediction.validation['espi-abc123-als']).toBe('refused');
    expect(prediction.pods).toEqual({
      'familiar-entry': 'ErrImageNeverPull (never-pull)',
      'normalised-entry': 'ErrImageNeverPull (never-pull)',
      'full-image': 'ErrImageNeverPull (never-pull)',
      'full-untagged': 'Running (present-accessible)',
    });
  });

  test.each([36, 37])(
    '1.%i: familiar entry ↔ familiar image and full ↔ full match; never across spellings',
    (minor) => {
      const { allowlist, prediction } = allowFor(minor);
      expect(allowlist).toContain('espi-abc123-als');
      expect(Object.values(prediction.validation)).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
      expect(prediction.pods).toEqual({
        'familiar-entry': 'Running (present-accessible)',
        'normalised-entry': 'ErrImageNeverPull (never-pull)',
        'full-image': 'Running (present-accessible)',
        'full-untagged': 'Running (present-accessible)',
      });
    },
  );
});

describe('the cross-namespace story (k/k #137024), the record ref (#136498) and its image names (#137629)', () => {
  test.each([35, 36, 37])('1.%i with containerd: pod B must pull and fails; A2 reuses without a pull', (minor) => {
    const p = predictCross(plan, kubeletOfMinor(minor), pods);
    const views = predictCrossViews(plan, p, cellView);
    expect(views.cross.value).toEqual({ podA: 'Running (pulled)', podB: 'ErrImagePull (pull-failed)' });
    expect(views.ref.value).toEqual({
      recordKeyedBy: 'image ID (config digest)',
      sameSecretPod: 'Running (present-accessible)',
    });
    expect(p.keys.writtenUnder).toBe(crossIds(plan).id);
    expect(p.podB.check).toBe('mustAuthenticate');
  });

  test('1.35 keys the record by the normalised name, so the full name with Never is found; 1.36+ by the familiar name', () => {
    const names = (minor: number) => predictCrossViews(plan, predictCross(plan, kubeletOfMinor(minor), pods), cellView);
    expect(names(35).names.value).toEqual({
      credentialMappingKeys: ['docker.io/library/espi-abc123-xns'],
      fullNameNever: 'Running (present-accessible)',
    });
    for (const minor of [36, 37])
      expect(names(minor).names.value).toEqual({
        credentialMappingKeys: ['espi-abc123-xns'],
        fullNameNever: 'ErrImageNeverPull (never-pull)',
      });
  });

  test('had the lookup used the repo digest (#135369 on master), pod B would have run: the #137024 symptom', () => {
    const p = predictCross(plan, { ...kubeletOfMinor(37), pulledRecordLookup: 'repo-digest' }, pods);
    expect(p.keys.found).toBe(false);
    expect(cellView(p.podB)).toBe('Running (present-accessible)');
    expect(p.podB.check).toBe('credentialPolicyAllowed');
  });
});
