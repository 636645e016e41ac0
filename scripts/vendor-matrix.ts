// Writes docs/vendors.md's compatibility matrix from a `credprov qualify` run:
// plugin × mode × client → verdict per Kubernetes version, read from the run's
// matrix.json and the per-version report.json each cell names; a SHOULD
// failure links to the finding (docs/findings.md) that quotes its check id.
// No cell is typed by hand. Run:
//   scripts/credprov qualify --kube-versions 1.33,1.34,1.35,1.36,1.37 \
//     --suite vendor-gcp --suite vendor-azure-kubelogin --suite vendor-oci --report-dir DIR
//   node scripts/vendor-matrix.ts DIR [--page docs/vendors.md] [--check]
// --check: exit 1 if the page's matrix differs from what DIR gives (nothing written).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Matrix } from '../src/report/matrix.ts';
import type { RunReport } from '../src/report/model.ts';
import {
  findingsByCheck,
  replaceMatrix,
  vendorMatrixMarkdown,
  vendorRows,
  type VendorRowsOf,
} from '../src/report/vendor-matrix.ts';
import { AZKL_MATRIX } from '../suites/vendor-azure-kubelogin/checks.ts';
import { GCP_MODES } from '../suites/vendor-gcp/checks.ts';
import { OCI_MATRIX } from '../suites/vendor-oci/checks.ts';

/** Which suite judges which plugin, and each check's row (the suites' own maps). */
const PLUGINS: VendorRowsOf[] = [
  {
    suite: 'vendor-gcp',
    plugin: 'auth-provider-gcp',
    rows: Object.fromEntries(Object.entries(GCP_MODES).map(([id, mode]) => [id, { mode, client: 'kubelet' }])),
    defaultClient: 'kubelet',
  },
  { suite: 'vendor-azure-kubelogin', plugin: 'Azure kubelogin', rows: AZKL_MATRIX, defaultClient: 'kubectl' },
  { suite: 'vendor-oci', plugin: 'oci ce cluster generate-token', rows: OCI_MATRIX, defaultClient: 'kubectl' },
  { suite: 'vendor-ecr', plugin: 'ecr-credential-provider', rows: {}, defaultClient: 'kubelet' },
  { suite: 'vendor-acr', plugin: 'acr-credential-provider', rows: {}, defaultClient: 'kubelet' },
  { suite: 'vendor-gke', plugin: 'gke-gcloud-auth-plugin', rows: {}, defaultClient: 'the four clients' },
  { suite: 'vendor-kubelogin', plugin: 'kubelogin (int128)', rows: {}, defaultClient: 'the four clients' },
  {
    suite: 'vendor-aws-iam-authenticator',
    plugin: 'aws-iam-authenticator, aws eks get-token',
    rows: {},
    defaultClient: 'the four clients',
  },
];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { page: { type: 'string', default: 'docs/vendors.md' }, check: { type: 'boolean', default: false } },
});
const dir = positionals[0];
if (!dir) {
  console.error('usage: node scripts/vendor-matrix.ts <qualify report dir> [--page docs/vendors.md] [--check]');
  process.exit(2);
}
const matrixFile = join(dir, 'matrix.json');
const matrix = JSON.parse(
  await readFile(matrixFile, 'utf8').catch(() => {
    console.error(`error: ${matrixFile}: not found (a credprov qualify --report-dir writes it)`);
    process.exit(2);
  }),
) as Matrix;
const reports = new Map<string, RunReport>();
for (const v of matrix.versions) {
  const named = matrix.rows.map((r) => r.cells[v]?.report).find((p): p is string => !!p);
  if (!named) continue;
  const candidates = [
    join(dirname(named), 'report.json'),
    ...(isAbsolute(named) ? [] : [join(dir, dirname(named), 'report.json')]),
  ];
  const file = candidates.find((f) => existsSync(f));
  if (!file) {
    console.error(
      `error: ${matrixFile}: version ${v}'s report ${named} has no report.json beside it (looked at ${candidates.join(', ')})`,
    );
    process.exit(2);
  }
  reports.set(v, JSON.parse(await readFile(file, 'utf8')) as RunReport);
}
const pageFile = values.page!;
const findings = findingsByCheck(await readFile(join(dirname(pageFile), 'findings.md'), 'utf8'));
const rows = vendorRows(matrix, reports, PLUGINS, findings);
// The run's own command line (its aggregate report), so the page says what to run again.
const command = (
  JSON.parse(await readFile(join(dir, 'report.json'), 'utf8').catch(() => '{}')) as { tool?: { command?: string } }
).tool?.command?.replace(/ --report-dir \S+/, '');
const body =
  `Verdicts of \`${command ?? `credprov qualify (suites ${matrix.rows.map((r) => r.suite).join(', ')})`}\`, one column per Kubernetes version ` +
  '(kubelet, kube-apiserver and kubectl of that release; the client libraries as pinned). ' +
  'Regenerate: run that command with `--report-dir DIR`, then `node scripts/vendor-matrix.ts DIR`. ' +
  'A cell reads pass (with the number of checks passed) or FAIL (with the MUST checks that failed); ' +
  'a SHOULD check that failed links the finding that names it.\n\n' +
  vendorMatrixMarkdown(matrix.versions, rows);
const page = await readFile(pageFile, 'utf8');
const next = replaceMatrix(page, body);
if (values.check) {
  if (next !== page) {
    console.error(`${pageFile}: its matrix is not what ${dir} gives; run node scripts/vendor-matrix.ts ${dir}`);
    process.exit(1);
  }
} else {
  await writeFile(pageFile, next);
  console.log(`${pageFile}: ${rows.length} rows × ${matrix.versions.length} versions`);
}
