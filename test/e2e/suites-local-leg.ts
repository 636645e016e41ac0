// The e2e table's local leg, by build stage: the rows of the suites that need
// a late build (lateSuites of src/cli/test-builds.ts), or the others. Each
// suite on a local cluster of its own, one after another, each torn down
// before the next comes up. A test file awaits it at its top level (jest
// collects the describes it declares).
import { afterAll, describe } from '@jest/globals';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { RecordingRedactor } from '../../src/testing/secret-scan.ts';
import { providerGate, suitesRun } from '../../src/testing/suite-on-provider.ts';
import { lateSuites, testBuilds, type BuildStage } from '../../src/cli/test-builds.ts';
import { SUITE_TABLE } from './suite-table.ts';
import { rowTests } from './suite-table-tests.ts';

export async function localLeg(stage: BuildStage): Promise<void> {
  const late = lateSuites(testBuilds());
  const rows = SUITE_TABLE.filter((row) => late.includes(row.suite.name) === (stage === 'late'));
  const gates = await Promise.all(rows.map((row) => providerGate('local', row.local?.prerequisites)));
  for (const [i, row] of rows.entries()) {
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
}
