// Writes docs/vendors.md's compatibility matrix from `credprov qualify` runs:
// plugin × mode × client → verdict per Kubernetes version, read from each run's
// matrix.json and the per-version report.json each cell names; a SHOULD
// failure links to the finding (docs/findings.md) that quotes its check id.
// Several runs (shards by suite group and version) are merged: a suite ×
// version cell two runs give is the later run's (a shard run again replaces
// it). No cell is typed by hand. Run:
//   scripts/credprov qualify --kube-versions 1.34,1.35 --suite vendor-gcp … --report-dir DIR1
//   scripts/credprov qualify --kube-versions 1.36,1.37 --suite vendor-ecr … --report-dir DIR2
//   node scripts/vendor-matrix.ts DIR1 DIR2 … [--page docs/vendors.md] [--check]
// --check: exit 1 if the page's matrix differs from what the DIRs give (nothing written).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Matrix } from '../src/report/matrix.ts';
import type { RunReport } from '../src/report/model.ts';
import {
  findingsByCheck,
  mergeRuns,
  replaceMatrix,
  vendorMatrixMarkdown,
  vendorRows,
  type QualifyRun,
  type VendorRowsOf,
} from '../src/report/vendor-matrix.ts';
import { AZKL_MATRIX } from '../suites/vendor-azure-kubelogin/checks.ts';
import { GCP_MODES } from '../suites/vendor-gcp/checks.ts';
import { OCI_MATRIX } from '../suites/vendor-oci/checks.ts';

const CLIENT_IDS = { KUBECTL: 'kubectl', 'CLIENT-GO': 'client-go', 'CLIENT-NODE': 'client-node', PYTHON: 'python' };
/** The earlier suites name no matrix of their own: each check's row by its id (ids as the suites' checks.ts). */
const byId = (ids: string[], row: (id: string) => { mode: string; client: string }) =>
  Object.fromEntries(ids.map((id) => [id, row(id)]));
const clientOf = (prefix: string, id: string, otherwise: string) =>
  id.startsWith(prefix) ? CLIENT_IDS[id.slice(prefix.length) as keyof typeof CLIENT_IDS] : otherwise;

/** Which suite judges which plugin, and each check's row (the suites' own maps where they have one). */
const PLUGINS: VendorRowsOf[] = [
  {
    suite: 'vendor-ecr',
    plugin: 'ecr-credential-provider',
    rows: byId(
      [
        'ECR-PULL-VIA-PLUGIN',
        'ECR-UNMATCHED-NOT-SENT',
        'ECR-ANSWER-FROM-EXPIRY',
        'ECR-CACHE-PER-RESPONSE',
        'ECR-TOKEN-REFRESH',
        'ECR-SA-ROLE-ANNOTATION-REQUIRED',
        'ECR-SA-NODE-AUDIENCE-RBAC',
        'ECR-SA-PULL-VIA-STS',
        'ECR-SA-WRONG-AUDIENCE-REFUSED',
      ],
      (id) => ({
        mode: id.startsWith('ECR-SA-') ? 'KEP-4412 (service-account token, STS)' : 'static keys',
        client: 'kubelet',
      }),
    ),
    defaultClient: 'kubelet',
  },
  {
    suite: 'vendor-acr',
    plugin: 'acr-credential-provider',
    rows: {
      ...byId(
        ['ACR-SP-PULL', 'ACR-CACHE-PER-REGISTRY', 'ACR-EMPTY-CREDENTIAL-ENTRY', 'ACR-NON-ACR-NOT-CACHED'],
        () => ({
          mode: 'service principal',
          client: 'kubelet',
        }),
      ),
      'ACR-MI-TOKEN-EXCHANGE': { mode: 'managed identity', client: 'kubelet' },
      'ACR-SA-TOKEN-UNUSED-WITHOUT-MI': { mode: 'KEP-4412, service principal', client: 'kubelet' },
      'ACR-SA-WORKLOAD-IDENTITY-EXCHANGE': { mode: 'KEP-4412, managed identity', client: 'kubelet' },
    },
    defaultClient: 'kubelet',
  },
  {
    suite: 'vendor-gcp',
    plugin: 'auth-provider-gcp',
    rows: Object.fromEntries(Object.entries(GCP_MODES).map(([id, mode]) => [id, { mode, client: 'kubelet' }])),
    defaultClient: 'kubelet',
  },
  {
    suite: 'vendor-aws-iam-authenticator',
    plugin: 'aws-iam-authenticator',
    checks: /^IAM-(?!AWSCLI-)/,
    rows: {},
    defaultMode: 'token (STS presigned URL), server webhook',
    defaultClient: 'kubectl',
  },
  {
    suite: 'vendor-aws-iam-authenticator',
    plugin: '`aws eks get-token`',
    checks: /^IAM-AWSCLI-/,
    rows: {},
    defaultMode: 'token (STS presigned URL)',
    defaultClient: 'kubectl',
  },
  {
    suite: 'vendor-kubelogin',
    plugin: 'kubelogin (int128)',
    rows: byId(
      [
        'KUBELOGIN-PASSWORD-GRANT-200',
        'KUBELOGIN-TOKEN-CACHE-REUSED',
        'KUBELOGIN-REFRESH-AT-EXPIRY',
        'KUBELOGIN-REVOKED-REFRESH-FALLS-BACK',
        'KUBELOGIN-ACCESS-TOKEN-AUDIENCE',
        'KUBELOGIN-ISSUER-CA',
        'KUBELOGIN-WRONG-CLIENT-SECRET-EXPLAINED',
        ...Object.keys(CLIENT_IDS).map((c) => `KUBELOGIN-CLIENT-${c}`),
        'KUBELOGIN-CLIENT-CREDENTIALS-200',
      ],
      (id) => ({
        mode: id === 'KUBELOGIN-CLIENT-CREDENTIALS-200' ? 'client credentials' : 'password grant',
        client: clientOf('KUBELOGIN-CLIENT-', id, 'kubectl') ?? 'kubectl',
      }),
    ),
    defaultClient: 'kubectl',
  },
  {
    suite: 'vendor-gke',
    plugin: 'gke-gcloud-auth-plugin',
    rows: byId(
      [
        'GKE-ADC-200',
        'GKE-WHOAMI',
        'GKE-JWT-BEARER-ASSERTION',
        'GKE-EXPIRY-IS-TOKEN-EXPIRY',
        'GKE-ADC-NO-TOKEN-CACHE',
        'GKE-BAD-ASSERTION-REFUSED',
        'GKE-REVOKED-NEXT-RUN-FRESH',
        'GKE-EXEC-INFO-V1',
        ...Object.keys(CLIENT_IDS).map((c) => `GKE-CLIENT-${c}`),
        'GKE-GCLOUD-CACHE-REUSE',
        'GKE-GCLOUD-CONFIG-SWITCH',
        'GKE-GCLOUD-REVOKED-CACHED-TOKEN',
      ],
      (id) => ({
        mode: id.startsWith('GKE-GCLOUD-') ? 'gcloud' : 'ADC (service-account key)',
        client: clientOf('GKE-CLIENT-', id, 'kubectl') ?? 'kubectl',
      }),
    ),
    defaultClient: 'kubectl',
  },
  { suite: 'vendor-azure-kubelogin', plugin: 'Azure kubelogin', rows: AZKL_MATRIX, defaultClient: 'kubectl' },
  { suite: 'vendor-oci', plugin: 'oci ce cluster generate-token', rows: OCI_MATRIX, defaultClient: 'kubectl' },
];

const { values, positionals: dirs } = parseArgs({
  allowPositionals: true,
  options: { page: { type: 'string', default: 'docs/vendors.md' }, check: { type: 'boolean', default: false } },
});
if (dirs.length === 0) {
  console.error('usage: node scripts/vendor-matrix.ts <qualify report dir>... [--page docs/vendors.md] [--check]');
  process.exit(2);
}

/** One run's matrix, its per-version reports, and its command line and wall time (its aggregate report). */
async function readRun(dir: string): Promise<QualifyRun & { command?: string; durationMs?: number }> {
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
  const aggregate = JSON.parse(
    await readFile(join(dir, 'report.json'), 'utf8').catch(() => '{}'),
  ) as Partial<RunReport>;
  return {
    matrix,
    reports,
    ...(aggregate.tool?.command ? { command: aggregate.tool.command.replace(/ --report-dir \S+/, '') } : {}),
    ...(aggregate.durationMs !== undefined ? { durationMs: aggregate.durationMs } : {}),
  };
}

const runs = [];
for (const dir of dirs) runs.push(await readRun(dir));
const { matrix, reports } = mergeRuns(runs);
const pageFile = values.page!;
const findings = findingsByCheck(await readFile(join(dirname(pageFile), 'findings.md'), 'utf8'));
const rows = vendorRows(matrix, reports, PLUGINS, findings);
// The runs' own command lines (their aggregate reports), so the page says what to run again.
const commands = runs.map(
  (r) =>
    `- \`${r.command ?? `credprov qualify (suites ${r.matrix.rows.map((x) => x.suite).join(', ')})`}\`` +
    (r.durationMs !== undefined ? ` (${Math.round(r.durationMs / 1000)} s)` : ''),
);
const body =
  `Verdicts of ${runs.length === 1 ? 'this run' : `these ${runs.length} runs (shards; a cell two runs give is the later one's)`}, ` +
  'one column per Kubernetes version (kubelet, kube-apiserver and kubectl of that release; the client libraries as pinned):\n\n' +
  `${commands.join('\n')}\n\n` +
  'Regenerate: run each with `--report-dir DIR`, then `node scripts/vendor-matrix.ts DIR…` in the same order. ' +
  'A cell reads pass (with the number of checks passed), skip, not run (no run covered the version), FAIL ' +
  '(with the MUST checks that failed) or harness error (credprov could not run the checks: the end of its message); ' +
  'a SHOULD check that failed links the finding that names it.\n\n' +
  vendorMatrixMarkdown(matrix.versions, rows);
const page = await readFile(pageFile, 'utf8');
const next = replaceMatrix(page, body);
if (values.check) {
  if (next !== page) {
    console.error(
      `${pageFile}: its matrix is not what ${dirs.join(' ')} give; run node scripts/vendor-matrix.ts ${dirs.join(' ')}`,
    );
    process.exit(1);
  }
} else {
  await writeFile(pageFile, next);
  console.log(`${pageFile}: ${rows.length} rows × ${matrix.versions.length} versions`);
}
