// The compatibility matrix is made from a qualify run, never typed: each row
// gathers its checks per version, a MUST failure fails the cell, a SHOULD
// failure links to the finding quoting its id, and the page keeps everything
// outside the markers.
import { describe, expect, test } from '@jest/globals';
import type { CheckResult, RunReport } from './model.ts';
import type { MatrixCell } from './matrix.ts';
import {
  compareVersions,
  findingsByCheck,
  mergeRuns,
  MATRIX_BEGIN,
  MATRIX_END,
  replaceMatrix,
  vendorMatrixMarkdown,
  vendorRows,
  type VendorRowsOf,
} from './vendor-matrix.ts';

const check = (suite: string, id: string, status: CheckResult['status'], level: 'MUST' | 'SHOULD' = 'MUST') =>
  ({
    suite,
    id,
    status,
    level,
    title: id,
    source: '',
    message: '',
    evidence: [],
    startedAt: '',
    durationMs: 0,
  }) as CheckResult;
const report = (checks: CheckResult[]) => ({ checks }) as unknown as RunReport;

const FINDINGS = `# Findings

## 24. oci-cli: a v1 user gets v1beta1

**Reproduce.** \`scripts/credprov run --suite vendor-oci\`; check \`OCI-EXEC-INFO-V1\`.

## Settled facts

\`NOT-A-FINDING\`
`;

describe('findingsByCheck', () => {
  test('maps a quoted check id to the heading that quotes it, and nothing outside numbered findings', () => {
    const m = findingsByCheck(FINDINGS);
    expect(m.get('OCI-EXEC-INFO-V1')).toBe('24-oci-cli-a-v1-user-gets-v1beta1');
    expect(m.has('NOT-A-FINDING')).toBe(false);
  });
});

describe('vendorRows', () => {
  const matrix = {
    versions: ['1.36.4', '1.37.1'],
    rows: [{ suite: 'vendor-oci', cells: {} }],
  };
  const reports = new Map([
    [
      '1.36.4',
      report([
        check('vendor-oci', 'OCI-LOGIN-KUBECTL', 'passed'),
        check('vendor-oci', 'OCI-EXEC-INFO-V1', 'failed', 'SHOULD'),
        check('vendor-oci', 'OCI-EXTRA', 'skipped'),
      ]),
    ],
    [
      '1.37.1',
      report([
        check('vendor-oci', 'OCI-LOGIN-KUBECTL', 'failed'),
        check('vendor-oci', 'OCI-EXEC-INFO-V1', 'passed', 'SHOULD'),
        check('other', 'OCI-LOGIN-KUBECTL', 'passed'),
      ]),
    ],
  ]);
  const plugins: VendorRowsOf[] = [
    {
      suite: 'vendor-oci',
      plugin: 'oci',
      rows: {
        'OCI-LOGIN-KUBECTL': { mode: 'api-key', client: 'kubectl' },
        'OCI-EXEC-INFO-V1': { mode: 'api-key v1 user', client: 'kubectl' },
      },
      defaultClient: 'kubectl',
    },
    { suite: 'vendor-gcp', plugin: 'not in this run', rows: {}, defaultClient: 'kubelet' },
    {
      suite: 'vendor-oci',
      plugin: 'oci, its extra checks',
      rows: {},
      defaultMode: 'extra',
      defaultClient: 'kubectl',
      checks: /^OCI-EXTRA$/,
    },
  ];
  const rows = vendorRows(matrix, reports, plugins, findingsByCheck(FINDINGS));

  test("one row per mode × client the suite's map names, plus the suite's row for checks it does not", () => {
    expect(rows.map((r) => `${r.plugin}/${r.mode}/${r.client}`)).toEqual([
      'oci/api-key/kubectl',
      'oci/api-key v1 user/kubectl',
      'oci/(suite)/kubectl',
      'oci, its extra checks/extra/kubectl',
    ]);
  });

  test('cells: a MUST failure fails, a SHOULD failure passes with its finding, a version without the check is not run', () => {
    expect(rows[0]!.cells['1.37.1']).toMatchObject({ status: 'failed', failed: ['OCI-LOGIN-KUBECTL'] });
    expect(rows[0]!.cells['1.36.4']).toMatchObject({ status: 'passed', passed: 1 });
    expect(rows[1]!.cells['1.36.4']).toMatchObject({
      status: 'passed',
      findings: [{ check: 'OCI-EXEC-INFO-V1', finding: '24-oci-cli-a-v1-user-gets-v1beta1' }],
    });
    expect(rows[2]!.cells['1.36.4']).toMatchObject({ status: 'skipped', skipped: 1 });
    expect(rows[2]!.cells['1.37.1']!.status).toBe('not run');
    // A plugin that owns some of a suite's checks (checks: /.../) gets those and nothing else.
    expect(rows[3]!.cells['1.36.4']).toMatchObject({ status: 'skipped', skipped: 1 });
    expect(rows[3]!.cells['1.37.1']!.status).toBe('not run');
  });

  test("a harness failure is credprov's: said apart from the plugin's MUST failures, with the harness's words", () => {
    const harness = { ...check('vendor-oci', 'OCI-LOGIN-KUBECTL', 'failed'), cause: 'harness' as const };
    harness.message = 'no environment for suite vendor-oci: kube-apiserver | exited';
    const [row] = vendorRows(
      { versions: ['1.33.13'], rows: [{ suite: 'vendor-oci', cells: {} }] },
      new Map([['1.33.13', report([harness])]]),
      [plugins[0]!],
      new Map(),
    );
    expect(row!.cells['1.33.13']).toMatchObject({ status: 'failed', failed: [], harness: { checks: 1 } });
    expect(vendorMatrixMarkdown(['1.33.13'], [row!])).toContain(
      '| **harness error** (1 checks not run): no environment for suite vendor-oci: kube-apiserver \\| exited |',
    );
  });

  test('the markdown quotes each verdict and links the finding', () => {
    const md = vendorMatrixMarkdown(matrix.versions, rows);
    expect(md).toContain('| plugin | mode | client | 1.36.4 | 1.37.1 |');
    expect(md).toContain(
      '| oci | api-key v1 user | kubectl | pass 0; SHOULD failed: [finding 24](findings.md#24-oci-cli-a-v1-user-gets-v1beta1 "OCI-EXEC-INFO-V1") | pass 1 |',
    );
    expect(md).toContain('| oci | api-key | kubectl | pass 1 | **FAIL** (OCI-LOGIN-KUBECTL) |');
  });
});

describe('replaceMatrix', () => {
  test('inserts the block after the title once, then replaces only what is between the markers', () => {
    const first = replaceMatrix('# Title\n\nIntro.\n', 'A\n');
    expect(first).toBe(`# Title\n\n${MATRIX_BEGIN}\nA\n${MATRIX_END}\n\nIntro.\n`);
    expect(replaceMatrix(first, 'B\n')).toBe(`# Title\n\n${MATRIX_BEGIN}\nB\n${MATRIX_END}\n\nIntro.\n`);
  });
});

describe('mergeRuns', () => {
  const cell = (status: MatrixCell['status']) => ({ status, passed: 1, failed: 0, skipped: 0, shouldFailed: 0 });
  // Shard A: vendor-oci on 1.37.1 and 1.34.5; shard B: vendor-gcp on 1.33.13; shard C: vendor-oci on 1.37.1 again.
  const a = {
    matrix: {
      versions: ['1.37.1', '1.34.5'],
      rows: [{ suite: 'vendor-oci', cells: { '1.37.1': cell('failed'), '1.34.5': cell('passed') } }],
    },
    reports: new Map([
      ['1.37.1', report([check('vendor-oci', 'OCI-A', 'failed')])],
      ['1.34.5', report([check('vendor-oci', 'OCI-A', 'passed')])],
    ]),
  };
  const b = {
    matrix: { versions: ['1.33.13'], rows: [{ suite: 'vendor-gcp', cells: { '1.33.13': cell('passed') } }] },
    reports: new Map([['1.33.13', report([check('vendor-gcp', 'GCP-A', 'passed')])]]),
  };
  const c = {
    matrix: { versions: ['1.37.1'], rows: [{ suite: 'vendor-oci', cells: { '1.37.1': cell('passed') } }] },
    reports: new Map([['1.37.1', report([check('vendor-oci', 'OCI-A', 'passed')])]]),
  };
  const merged = mergeRuns([a, b, c]);

  test('versions in release order, suites in order of first appearance, a cell only where a run gave one', () => {
    expect(merged.matrix.versions).toEqual(['1.33.13', '1.34.5', '1.37.1']);
    expect(merged.matrix.rows.map((r) => r.suite)).toEqual(['vendor-oci', 'vendor-gcp']);
    expect(Object.keys(merged.matrix.rows[1]!.cells)).toEqual(['1.33.13']);
  });

  test('a shard run again replaces the earlier cell and its checks, and nothing else', () => {
    expect(merged.matrix.rows[0]!.cells['1.37.1']!.status).toBe('passed');
    expect(merged.reports.get('1.37.1')!.checks.map((x) => x.status)).toEqual(['passed']);
    expect(merged.reports.get('1.34.5')!.checks.map((x) => `${x.suite}:${x.status}`)).toEqual(['vendor-oci:passed']);
  });

  test('compareVersions puts a pre-release before its release', () => {
    expect(['1.38.0', 'v1.38.0-alpha.0', '1.37.1', '1.9.0'].sort(compareVersions)).toEqual([
      '1.9.0',
      '1.37.1',
      'v1.38.0-alpha.0',
      '1.38.0',
    ]);
  });
});
