// docs/vendors.md's compatibility matrix: plugin × mode × client → a verdict
// per Kubernetes version, read from a `credprov qualify` run (its matrix.json
// and the per-version report each cell names). A row gathers the checks of one
// plugin's mode through one client (a kubelet plugin's client is the kubelet);
// its cell is the verdict of those checks on that version, and a SHOULD check
// that failed links to the finding that quotes its id (docs/findings.md).
// Pure: the caller reads the files and says which check is which row.
import type { CheckResult, RunReport, Status } from './model.ts';
import type { Matrix } from './matrix.ts';

export interface VendorRowsOf {
  suite: string;
  plugin: string;
  /** A check id → its mode and client; a check not named is the suite's own row ('(suite)', 'kubelet' or 'kubectl'). */
  rows: Record<string, { mode: string; client: string }>;
  /** The mode and client of the checks the map does not name (mode: '(suite)' unless said). */
  defaultMode?: string;
  defaultClient: string;
  /** The suite's checks that judge this plugin, when the suite judges more than one (default: all). */
  checks?: RegExp;
}

export interface VendorCell {
  status: Status | 'not run';
  passed: number;
  /** MUST checks that failed on the subject's account. */
  failed: string[];
  /** Checks the harness could not run (cause harness): how many, and the first one's message. */
  harness?: { checks: number; message: string };
  skipped: number;
  /** SHOULD checks that failed on the subject's account, with the finding that names each (if any). */
  findings: Array<{ check: string; finding?: string }>;
}

export interface VendorRow {
  plugin: string;
  mode: string;
  client: string;
  cells: Record<string, VendorCell>;
}

/** One finding per heading of docs/findings.md: its anchor and the check ids it quotes (`ID`). */
export function findingsByCheck(findingsMd: string): Map<string, string> {
  const out = new Map<string, string>();
  let anchor: string | undefined;
  for (const line of findingsMd.split('\n')) {
    const h = /^## (\d+\. .+)$/.exec(line);
    if (h) {
      anchor = h[1]!
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(/ /g, '-');
      continue;
    }
    if (/^## /.test(line)) anchor = undefined;
    if (anchor)
      for (const m of line.matchAll(/`([A-Z][A-Z0-9]+(?:-[A-Z0-9]+)+)`/g)) if (!out.has(m[1]!)) out.set(m[1]!, anchor);
  }
  return out;
}

function cellOf(checks: CheckResult[], findings: Map<string, string>): VendorCell {
  if (checks.length === 0) return { status: 'not run', passed: 0, failed: [], skipped: 0, findings: [] };
  const harness = checks.filter((c) => c.status === 'failed' && c.cause === 'harness');
  const blocking = checks.filter((c) => c.status === 'failed' && c.level === 'MUST' && c.cause !== 'harness');
  const warned = checks.filter((c) => c.status === 'failed' && !blocking.includes(c) && !harness.includes(c));
  const passed = checks.filter((c) => c.status === 'passed').length;
  return {
    status: blocking.length || harness.length ? 'failed' : passed || warned.length ? 'passed' : 'skipped',
    passed,
    failed: blocking.map((c) => c.id),
    ...(harness.length ? { harness: { checks: harness.length, message: harness[0]!.message } } : {}),
    skipped: checks.filter((c) => c.status === 'skipped').length,
    findings: warned.map((c) => ({ check: c.id, ...(findings.has(c.id) ? { finding: findings.get(c.id)! } : {}) })),
  };
}

/** The rows, in the order of `plugins` and of each one's map, from the qualify run's per-version reports. */
export function vendorRows(
  matrix: Matrix,
  reports: ReadonlyMap<string, RunReport>,
  plugins: VendorRowsOf[],
  findings: Map<string, string>,
): VendorRow[] {
  const rows: VendorRow[] = [];
  for (const p of plugins) {
    if (!matrix.rows.some((r) => r.suite === p.suite)) continue;
    const keys: Array<{ mode: string; client: string }> = [];
    const rest = { mode: p.defaultMode ?? '(suite)', client: p.defaultClient };
    const keyOf = (id: string) => p.rows[id] ?? rest;
    for (const id of Object.keys(p.rows)) {
      const k = keyOf(id);
      if (!keys.some((x) => x.mode === k.mode && x.client === k.client)) keys.push(k);
    }
    const ours = (c: CheckResult) => c.suite === p.suite && (!p.checks || p.checks.test(c.id));
    const seen = matrix.versions.flatMap((v) => (reports.get(v)?.checks ?? []).filter(ours));
    if (seen.some((c) => !p.rows[c.id]) && !keys.some((k) => k.mode === rest.mode && k.client === rest.client))
      keys.push(rest);
    for (const k of keys)
      rows.push({
        plugin: p.plugin,
        mode: k.mode,
        client: k.client,
        cells: Object.fromEntries(
          matrix.versions.map((v) => {
            const checks = (reports.get(v)?.checks ?? []).filter((c) => {
              const ck = keyOf(c.id);
              return ours(c) && ck.mode === k.mode && ck.client === k.client;
            });
            return [v, cellOf(checks, findings)];
          }),
        ),
      });
  }
  return rows;
}

/** The last `n` characters of `text`, from a word's start, marked as cut. */
function tail(text: string, n: number): string {
  if (text.length <= n) return text;
  const cut = text.slice(-n);
  return `…${cut.slice(cut.indexOf(' ') + 1)}`;
}

function showCell(c: VendorCell, findingsPage: string): string {
  if (c.status === 'not run') return 'not run';
  // A harness failure is credprov's, not the plugin's: said as such, with the end of the harness's own message (a
  // chain of causes, the root one last), on one line, without pipes or the hint (a path on the machine that ran it).
  const harness = c.harness
    ? `**harness error** (${c.harness.checks} checks not run): ${tail(c.harness.message.replace(/\s+/g, ' ').replace(/ \(hint: [^)]*\)$/, ''), 140).replace(/\|/g, '\\|')}`
    : undefined;
  const failed = c.failed.length ? `**FAIL** (${c.failed.join(', ')})` : undefined;
  const head =
    c.status === 'failed'
      ? [failed, harness].filter(Boolean).join('; ')
      : c.status === 'skipped'
        ? 'skip'
        : `pass ${c.passed}`;
  // A finding by its number (its anchor's), the check id as the link's title; a SHOULD failure no finding names, by id.
  const notes = c.findings.map((f) =>
    f.finding
      ? `[finding ${/^\d+/.exec(f.finding)?.[0] ?? f.finding}](${findingsPage}#${f.finding} "${f.check}")`
      : `${f.check} (no finding)`,
  );
  return notes.length ? `${head}; SHOULD failed: ${notes.join(', ')}` : head;
}

/** The table, one column per version ("1.37.1"). */
export function vendorMatrixMarkdown(versions: string[], rows: VendorRow[], findingsPage = 'findings.md'): string {
  const lines = [
    `| plugin | mode | client | ${versions.join(' | ')} |`,
    `|---|---|---|${versions.map(() => '---').join('|')}|`,
    ...rows.map(
      (r) =>
        `| ${r.plugin} | ${r.mode} | ${r.client} | ${versions.map((v) => showCell(r.cells[v]!, findingsPage)).join(' | ')} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

export const MATRIX_BEGIN = '<!-- vendor-matrix:begin (scripts/vendor-matrix.ts writes this; do not edit) -->';
export const MATRIX_END = '<!-- vendor-matrix:end -->';

/** `page` with the text between the markers replaced (the markers inserted after the title when absent). */
export function replaceMatrix(page: string, body: string): string {
  const block = `${MATRIX_BEGIN}\n${body}${MATRIX_END}`;
  const a = page.indexOf(MATRIX_BEGIN);
  const b = page.indexOf(MATRIX_END);
  if (a >= 0 && b > a) return page.slice(0, a) + block + page.slice(b + MATRIX_END.length);
  const nl = page.indexOf('\n\n');
  return nl < 0 ? `${page}\n\n${block}\n` : `${page.slice(0, nl)}\n\n${block}${page.slice(nl)}`;
}

/** One `credprov qualify` run: its matrix and its per-version reports (by the matrix's version keys). */
export interface QualifyRun {
  matrix: Matrix;
  reports: ReadonlyMap<string, RunReport>;
}

/** "1.34.5" or "v1.38.0-alpha.0" in release order (a pre-release before its release). */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => {
    const [core, pre] = v.replace(/^v/, '').split('-', 2);
    return { nums: core!.split('.').map(Number), pre };
  };
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < 3; i++) if ((x.nums[i] ?? 0) !== (y.nums[i] ?? 0)) return (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/**
 * Several qualify runs (shards by suite group and version) as one run: the union of their versions, in release
 * order, and of their suites, in order of first appearance. A suite × version cell more than one run gives is the
 * last run's, checks and all (a shard run again replaces the earlier one).
 */
export function mergeRuns(runs: QualifyRun[]): { matrix: Matrix; reports: Map<string, RunReport> } {
  const key = (suite: string | undefined, v: string) => `${suite}\u0000${v}`;
  const owner = new Map<string, number>();
  const suites: string[] = [];
  runs.forEach((r, i) => {
    for (const row of r.matrix.rows) {
      if (!suites.includes(row.suite)) suites.push(row.suite);
      for (const v of Object.keys(row.cells)) owner.set(key(row.suite, v), i);
    }
  });
  const versions = [...new Set(runs.flatMap((r) => r.matrix.versions))].sort(compareVersions);
  const rows = suites.map((suite) => ({
    suite,
    cells: Object.fromEntries(
      versions.flatMap((v) => {
        const i = owner.get(key(suite, v));
        const cell = i === undefined ? undefined : runs[i]!.matrix.rows.find((r) => r.suite === suite)?.cells[v];
        return cell ? [[v, cell]] : [];
      }),
    ),
  }));
  const reports = new Map<string, RunReport>();
  for (const v of versions) {
    const from = runs.flatMap((r, i) => {
      const rep = r.reports.get(v);
      return rep ? [{ rep, checks: rep.checks.filter((c) => owner.get(key(c.suite, v)) === i) }] : [];
    });
    if (from.length) reports.set(v, { ...from[0]!.rep, checks: from.flatMap((f) => f.checks) });
  }
  return { matrix: { versions, rows }, reports };
}
