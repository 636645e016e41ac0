// The suite's predictions from its own model, without a cluster: each rule
// below is one a reader can check against src/model/ensure-secret-pulled.ts
// (and the kubelet sources it cites) cell by cell.
import { describe, expect, test } from '@jest/globals';
import { buildImage } from '../../src/run/kit.ts';
import { credentialHash, kubeletOfMinor, recordFileName } from '../../src/model/ensure-secret-pulled.ts';
import { allowlistOf, buildCells, PHASES, pruneCellOf, type Cell, type Identities } from './plan-cells.ts';
import { phaseConfig, podProviders, SA_PROVIDER } from './plan.ts';
import {
  gcSettings,
  predictPrune,
  predictPruning,
  predictRecordsContent,
  predictRecordsFormat,
  predictReimported,
  predictRestart,
  sameRecord,
} from './predict-records.ts';
import {
  cellView,
  metricsAgree,
  outcomeCounts,
  predictMatrix,
  predictPhase,
  predictPhaseMetrics,
  predictPluginExecs,
  providerCells,
} from './predict.ts';

const layout = { host: 'reg.test:5000', root: 'espi-abc123' };
const right = { username: 'espi', password: 'right-password' };
const base = buildImage({
  name: 'credprov/busybox',
  tag: 'v1',
  layers: [[{ type: 'file', path: 'bin/busybox', data: 'not really busybox' }]],
});
const cells = buildCells(layout, base);
const ids: Identities = {
  namespace: 'credprov-espi-abc123',
  host: layout.host,
  right,
  wrong: { username: 'espi', password: 'wrong-password' },
  secretUids: { right: 'uid-right', 'right-copy': 'uid-right-copy', wrong: 'uid-wrong' },
  saUids: { default: 'uid-default', 'sa-a': 'uid-sa-a', 'sa-b': 'uid-sa-b' },
  providers: podProviders(layout, right),
};
const allowlist = allowlistOf(layout);
const matrix = predictMatrix(cells, ids, allowlist);
const ofPhase = (i: number) => cells.filter((c) => c.phase === PHASES[i]);
const second = (c: Cell) => matrix.second.get(c)!;
const cellIn = (i: number, id: string) => {
  const found = ofPhase(i).find((c) => c.id === id);
  if (!found) throw new Error(`no cell ${id} under ${PHASES[i]!.policy}`);
  return found;
};
const rightSecret = {
  uid: 'uid-right',
  namespace: ids.namespace,
  name: 'right',
  credentialHash: credentialHash(right),
};

describe('ensure-secret-pulled-images cells', () => {
  test('28 cells per policy (2 pull policies × 7 credential sources × 2 provenances), twice that under the allowlist policy', () => {
    expect(PHASES.map((_, i) => ofPhase(i).length)).toEqual([28, 28, 56, 28]);
    expect(new Set(cells.map((c) => c.ref)).size).toBe(cells.length);
    expect(new Set(cells.map((c) => c.image.config.digest)).size).toBe(cells.length);
  });

  test("every first pull runs and records the secret right, or sa-a for the service-account-mode provider's cells", () => {
    for (const [cell, p] of matrix.first) {
      expect({ cell: cell.id, outcome: p.outcome, created: p.recordCreated }).toEqual({
        cell: cell.id,
        outcome: 'Running',
        created: true,
      });
      const mapping = Object.values(p.node.record!.credentialMapping);
      expect(mapping).toEqual(
        cell.kind === 'sa'
          ? [{ kubernetesServiceAccounts: [{ uid: 'uid-sa-a', namespace: ids.namespace, name: 'sa-a' }] }]
          : [{ kubernetesSecrets: [rightSecret] }],
      );
    }
    expect(matrix.first.size).toBe(cells.length / 2);
  });
});

describe('ensure-secret-pulled-images matrix predictions', () => {
  test('NeverVerify: every image on the node is allowed, no provider runs', () => {
    for (const c of ofPhase(0)) {
      expect([c.id, cellView(second(c)), second(c).check, second(c).providersInvoked]).toEqual([
        c.id,
        'Running (present-accessible)',
        'credentialPolicyAllowed',
        [],
      ]);
    }
  });

  test('NeverVerifyPreloadedImages (the default): preloaded images are allowed; kubelet-pulled ones need a recorded credential', () => {
    const view = (id: string) => cellView(second(cellIn(1, id)));
    for (const c of ofPhase(1).filter((x) => x.provenance === 'preloaded'))
      expect([c.id, second(c).check]).toEqual([c.id, 'credentialPolicyAllowed']);
    expect(view('IfNotPresent/same-secret/kubelet')).toBe('Running (present-accessible)');
    // The same credentials under another name match by hash, and that secret is added to the record.
    expect(view('IfNotPresent/other-secret/kubelet')).toBe('Running (present-accessible)');
    expect(second(cellIn(1, 'IfNotPresent/other-secret/kubelet')).recordWritten).toBe(true);
    expect(view('IfNotPresent/none/kubelet')).toBe('ErrImagePull (pull-failed)');
    expect(view('IfNotPresent/wrong-secret/kubelet')).toBe('ErrImagePull (pull-failed)');
    // The row the e2e test looks for in report.md.
    expect([view('Never/wrong-secret/kubelet'), second(cellIn(1, 'Never/wrong-secret/kubelet')).check]).toEqual([
      'ErrImageNeverPull (never-pull)',
      'mustAuthenticate',
    ]);
    expect(view('IfNotPresent/provider/kubelet')).toBe('Running (pulled)');
    expect(view('Never/provider/kubelet')).toBe('ErrImageNeverPull (never-pull)');
    expect(view('IfNotPresent/provider-sa-same/kubelet')).toBe('Running (present-accessible)');
    expect(second(cellIn(1, 'IfNotPresent/provider-sa-same/kubelet')).providersInvoked).toEqual([SA_PROVIDER]);
    expect(view('IfNotPresent/provider-sa-other/kubelet')).toBe('Running (pulled)');
    expect(view('Never/provider-sa-other/kubelet')).toBe('ErrImageNeverPull (never-pull)');
  });

  test('NeverVerifyAllowlistedImages: allowlisted cells are allowed whatever their provenance', () => {
    for (const c of ofPhase(2).filter((x) => x.allowlisted))
      expect([c.id, second(c).check]).toEqual([c.id, 'credentialPolicyAllowed']);
    expect(cellView(second(cellIn(2, 'Never/none/preloaded/not-allowlisted')))).toBe('ErrImageNeverPull (never-pull)');
  });

  test('AlwaysVerify: a preloaded image has no record, so the pod must pull with credentials that work', () => {
    const view = (id: string) => cellView(second(cellIn(3, id)));
    expect(view('IfNotPresent/same-secret/preloaded')).toBe('Running (pulled)');
    expect(view('IfNotPresent/none/preloaded')).toBe('ErrImagePull (pull-failed)');
    expect(view('Never/same-secret/preloaded')).toBe('ErrImageNeverPull (never-pull)');
    expect(second(cellIn(3, 'IfNotPresent/provider/preloaded')).node.record?.credentialMapping).toEqual({
      [`${layout.host}/${cellIn(3, 'IfNotPresent/provider/preloaded').repo}`]: { nodePodsAccessible: true },
    });
  });

  test("a policy's prediction counts its outcomes and names the default when the field is unset", () => {
    const phase = PHASES[1]!;
    const p = predictPhase(
      phase,
      ofPhase(1).map((cell) => ({ cell, predicted: second(cell) })),
      allowlist,
    );
    // Kubelet-pulled: IfNotPresent fails with none and the wrong secret; Never is refused with none, the wrong secret, a
    // node-mode provider and another SA (8 of 14 run). Preloaded: all 14 run.
    expect(p.because).toMatch(
      /^NeverVerifyPreloadedImages \(unset: the default\): 2 ErrImagePull, 22 Running, 4 ErrImageNeverPull predicted/,
    );
    expect(outcomeCounts({ a: 'Running (x)', b: 'ErrImagePull (y)', c: 'Running (z)' })).toBe(
      '2 Running, 1 ErrImagePull',
    );
  });
});

describe('ensure-secret-pulled-images checks over all cells', () => {
  const all = cells.map((cell) => ({ cell, predicted: second(cell) }));

  test('metrics: under NeverVerify one credentialPolicyAllowed per cell; the records gauge counts every file after a write', () => {
    const first = predictPhaseMetrics({ phaseIndex: 0, cells, matrix, baselineRecords: 3, extra: [] });
    expect(first).toEqual({
      credentialPolicyAllowed: 28,
      credentialRecordFound: 0,
      mustAuthenticate: 0,
      error: 0,
      ondisk_pulledrecords: 3 + 70,
      ondisk_pullintents: 0,
    });
    // A record the field-bug pods create between two policies counts from the next policy on.
    expect(
      predictPhaseMetrics({ phaseIndex: 0, cells, matrix, baselineRecords: 3, extra: [], outsideRecords: 1 })
        .ondisk_pulledrecords,
    ).toBe(3 + 70 + 1);
    const afterRestart = predictPhaseMetrics({ phaseIndex: 1, cells, matrix, baselineRecords: 3, extra: [] });
    // Failing pods retry: mustAuthenticate is a minimum.
    expect(String(afterRestart.mustAuthenticate)).toMatch(/^>=\d+$/);
    expect(metricsAgree({ p: { mustAuthenticate: '>=2', error: 0 } }, { p: { mustAuthenticate: 5, error: 0 } })).toBe(
      true,
    );
    expect(metricsAgree({ p: { mustAuthenticate: '>=2', error: 0 } }, { p: { mustAuthenticate: 1, error: 0 } })).toBe(
      false,
    );
  });

  test("providers are exec'd only for the cells whose pod's credentials are looked up", () => {
    const p = predictPluginExecs(all);
    expect(Object.keys(p.value)).toHaveLength(providerCells(all).length);
    expect(
      Object.entries(p.value)
        .filter(([k]) => k.startsWith('NeverVerify '))
        .every(([, v]) => v === "not exec'd"),
    ).toBe(true);
    expect(p.value['AlwaysVerify Never/provider-sa-same/kubelet']).toBe("exec'd");
  });

  test('records: a preloaded cell gets one only when its pod pulls; key order does not matter', () => {
    const p = predictRecordsContent(all);
    expect(p.value['NeverVerify IfNotPresent/same-secret/preloaded']).toBe('no record');
    expect(p.value['NeverVerify IfNotPresent/same-secret/kubelet']).toEqual({
      imageRef: cellIn(0, 'IfNotPresent/same-secret/kubelet').image.config.digest,
      credentialMapping: {
        [`${layout.host}/${cellIn(0, 'IfNotPresent/same-secret/kubelet').repo}`]: { kubernetesSecrets: [rightSecret] },
      },
    });
    expect(
      sameRecord(
        { imageRef: 'a', credentialMapping: { x: { b: 1, a: 2 } } },
        { credentialMapping: { x: { a: 2, b: 1 } }, imageRef: 'a' },
      ),
    ).toBe(true);
  });

  test('records format: v1beta1 from kubelet 1.35, v1alpha1 before', () => {
    expect(predictRecordsFormat(37).value.recordKinds).toEqual(['ImagePulledRecord kubelet.config.k8s.io/v1beta1']);
    expect(predictRecordsFormat(34).value.intentKinds).toEqual(['ImagePullIntent kubelet.config.k8s.io/v1alpha1']);
    expect(predictRecordsFormat(37).value.dirModes).toEqual({ image_manager: '0700', pulled: '0700', pulling: '0700' });
  });

  test('restart: current records are kept as they are, and the gauges read 0 until the next write', () => {
    const p = predictRestart(37, { recordVersions: ['kubelet.config.k8s.io/v1beta1'], intentImages: [] });
    expect(p.value).toEqual({
      recordsDeleted: 0,
      recordsRewritten: 0,
      intentsConverted: 0,
      ondiskGauges: { pulledRecords: 0, pullIntents: 0 },
    });
    expect(
      predictRestart(37, { recordVersions: ['kubelet.config.k8s.io/v1alpha1'], intentImages: [] }).value
        .recordsRewritten,
    ).toBe(1);
  });

  test("pruning: nothing prunes a removed image's record short of image GC; re-imported with its record it is refused to Never", () => {
    expect(gcSettings('imageGCHighThresholdPercent: 100\nimageMaximumGCAge: 0s\n')).toEqual({
      imageGCHighThresholdPercent: '100',
      imageMaximumGCAge: '0s',
    });
    expect(gcSettings('kind: KubeletConfiguration\n')).toEqual({});
    const pruning = predictPruning('');
    expect([pruning.afterWait, pruning.afterRestart]).toEqual(['kept', 'kept']);
    const cell = pruneCellOf(cells);
    expect(recordFileName(cell.image.config.digest)).toMatch(/^sha256-[0-9a-f]{64}$/);
    const kept = predictReimported(cell, PHASES[1]!, true, second(cell).node.record, ids);
    expect(predictPrune(pruning, kept).value).toEqual({
      afterWait: 'kept',
      afterRestart: 'kept',
      reimportedPod: 'ErrImageNeverPull',
    });
    // Without its record the image would count as preloaded, which the default policy allows.
    expect(predictReimported(cell, PHASES[1]!, false, undefined, ids).outcome).toBe('Running');
  });

  test("a phase's kubelet config replaces only the two KEP-2535 fields", () => {
    const current = {
      registryPullQPS: 0,
      imagePullCredentialsVerificationPolicy: 'NeverVerify',
      preloadedImagesVerificationAllowlist: ['x/*'],
    };
    expect(phaseConfig(current, PHASES[1]!, allowlist)).toEqual({ registryPullQPS: 0 });
    expect(phaseConfig(current, PHASES[2]!, allowlist)).toEqual({
      registryPullQPS: 0,
      imagePullCredentialsVerificationPolicy: 'NeverVerifyAllowlistedImages',
      preloadedImagesVerificationAllowlist: allowlist,
    });
  });
});

describe('records per kubelet minor (version table serviceAccountPullRecords, k/k #132771)', () => {
  test('1.35–1.37 record the SA-mode first pull under kubernetesServiceAccounts; a 1.33 row would record nodePodsAccessible', () => {
    const saCell = cells.find((c) => c.kind === 'sa' && c.provenance === 'kubelet')!;
    const firstRecord = (minor: number) =>
      predictMatrix(cells, ids, allowlist, kubeletOfMinor(minor)).first.get(saCell)!.node.record!.credentialMapping;
    for (const minor of [35, 36, 37])
      expect(Object.values(firstRecord(minor))).toEqual([
        { kubernetesServiceAccounts: [{ uid: 'uid-sa-a', namespace: ids.namespace, name: 'sa-a' }] },
      ]);
    expect(Object.values(firstRecord(33))).toEqual([{ nodePodsAccessible: true }]);
  });
});
