// The e2e table's local leg, by file: the rows of the suites whose late
// builds name the file (lateSuites of src/cli/test-builds.ts), or, for the
// early file, the suites that need no late build. Each suite on a local
// cluster of its own, one after another, each torn down before the next comes
// up. A test file awaits it at its top level (jest collects the describes it
// declares).
import { afterAll, describe } from '@jest/globals';
import { e2eEnvName } from '../../src/testing/env-name.ts';
import { RecordingRedactor } from '../../src/testing/secret-scan.ts';
import { providerGate, suitesRun } from '../../src/testing/suite-on-provider.ts';
import { lateSuites, testBuilds } from '../../src/cli/test-builds.ts';
import { SUITE_TABLE } from './suite-table.ts';
import { rowTests } from './suite-table-tests.ts';

/** The file that runs the suites no late build names. */
export const LOCAL_EARLY = 'test/e2e/suites-local.e2e.test.ts';

/** The suites `file` runs (a path from the repository's root). */
export function localLegSuites(file: string): string[] {
  const builds = testBuilds();
  const late = lateSuites(builds);
  const mine = file === LOCAL_EARLY ? [] : lateSuites(builds, file);
  return SUITE_TABLE.map((row) => row.suite.name).filter((s) =>
    file === LOCAL_EARLY ? !late.includes(s) : mine.includes(s),
  );
}

export async function localLeg(file: string): Promise<void> {
  const suites = localLegSuites(file);
  const rows = SUITE_TABLE.filter((row) => suites.includes(row.suite.name));
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
