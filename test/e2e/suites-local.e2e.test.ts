// The e2e table's local leg: every suite on a local cluster of its own (real
// etcd, kube-apiserver, containerd and kubelet), one after another, each torn
// down before the next comes up. One jest test per check (suite-table.ts).
import { afterAll, describe } from '@jest/globals';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { RecordingRedactor } from '../../src/testing/secret-scan.ts';
import { providerGate, suitesRun } from '../../src/testing/suite-on-provider.ts';
import { SUITE_TABLE } from './suite-table.ts';
import { rowTests } from './suite-table-tests.ts';

const gates = await Promise.all(SUITE_TABLE.map((row) => providerGate('local', row.local?.prerequisites)));

for (const [i, row] of SUITE_TABLE.entries()) {
  const h = suitesRun(
    row.suite,
    { provider: 'local', envName: e2eEnvName(row.env), redactor: new RecordingRedactor(), ...row.local },
    gates[i]!,
  );
  describe(`${row.suite.name} (local)`, () => {
    afterAll(() => h.down(), 300_000);
    rowTests(row, h);
  });
}
