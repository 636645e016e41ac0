// How much of each suite is intent: checks, plans, predictions, and the cases
// that act and observe, against the plumbing around them (imports, sessions,
// kubeconfigs, timing and windows kept by hand). The count issue 32 asks for,
// made repeatable: `node scripts/suite-intent.ts [suites-dir] [--json]`.
//
// What counts: the non-test .ts files of a suite, their non-blank lines that
// are not only a comment. A line is plumbing when it is
//   - part of an import (or an `export … from`);
//   - in a top-level declaration of a file other than checks/plan/predict that
//     is not data (a literal) and neither builds a case (caseOf, judge, a
//     Case), nor is the Suite, nor runs cases: helpers, sessions, evidence
//     formatters, and the types they pass around;
//   - in a case, a line that does by hand what the kit offers (a start time,
//     Date.now(), a before/after window, reading a run log, writing a
//     kubeconfig, starting and closing a probe, try/finally, a raw execa,
//     readFile/parse/Buffer, redactor.add, process.env).
// Everything else is intent: checks*.ts, plan*.ts and predict*.ts whole (what
// the suite knows and predicts), data literals anywhere, the suite object,
// and the cases' own lines.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface FileCount {
  file: string;
  lines: number;
  intent: number;
}

const INTENT_FILES = /^(checks|plan|predict)([-.][\w-]+)?\.ts$/;
const CASE_MARKERS =
  /\bcaseOf\(|\bjudge\(|:\s*Case\b|\bCase\[\]|\bSuite\b\s*=|\brunCases\(|\bnotRun\(|\bnotApplicable\(/;
const HAND_PLUMBING = [
  /\bnew Date\(/,
  /\bDate\.now\(/,
  /\w+Before\b/,
  /\breadExecRuns\(/,
  /\bwriteProbeKubeconfig\(|\bprobeKubeconfig\(/,
  /\.start\(\s*\{\s*kubeconfig/,
  /\bsession\.close\(/,
  /^\s*try \{$|^\s*\} finally \{$|^\s*\} catch( \(\w+\))? \{$/,
  /\bexeca\(/,
  /\breadFile\(|\bwriteFile\(|\bmkdir\(|\bparse\(await/,
  /\bBuffer\.from\(/,
  /\bredactor\.add\(/,
  /\bprocess\.env\b/,
  /availability\.ok/,
];

function codeLines(text: string): Set<number> {
  // Line numbers (0-based) holding code: not blank, not only a comment.
  const lines = new Set<number>();
  // Every token but trivia (comments, whitespace) marks the lines it spans; a template literal's span covers its body.
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const sf = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false);
  for (let k = scanner.scan(); k !== ts.SyntaxKind.EndOfFileToken; k = scanner.scan()) {
    const start = sf.getLineAndCharacterOfPosition(scanner.getTokenStart()).line;
    const end = sf.getLineAndCharacterOfPosition(scanner.getTokenEnd()).line;
    for (let l = start; l <= end; l++) lines.add(l);
  }
  return lines;
}

/** A top-level `const` whose value is a literal (an object, array, string, number), as written or cast. */
function isData(st: ts.Statement): boolean {
  if (!ts.isVariableStatement(st)) return false;
  return st.declarationList.declarations.every((d) => {
    let e = d.initializer;
    while (e && (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e)))
      e = e.expression;
    return (
      e !== undefined &&
      (ts.isObjectLiteralExpression(e) ||
        ts.isArrayLiteralExpression(e) ||
        ts.isStringLiteral(e) ||
        ts.isNoSubstitutionTemplateLiteral(e) ||
        ts.isTemplateExpression(e) ||
        ts.isNumericLiteral(e))
    );
  });
}

export function countFile(path: string, text = readFileSync(path, 'utf8')): FileCount {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const code = codeLines(text);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const src = text.split('\n');
  const wholeFileIntent = INTENT_FILES.test(basename(path));
  let intent = 0;
  let counted = 0;
  for (const st of sf.statements) {
    const lines = [...Array(lineOf(st.getEnd()) - lineOf(st.getStart(sf)) + 1).keys()]
      .map((i) => i + lineOf(st.getStart(sf)))
      .filter((l) => code.has(l));
    counted += lines.length;
    const isImport = ts.isImportDeclaration(st) || (ts.isExportDeclaration(st) && st.moduleSpecifier !== undefined);
    if (isImport) continue;
    if (wholeFileIntent || isData(st)) {
      intent += lines.length;
      continue;
    }
    if (!CASE_MARKERS.test(text.slice(st.getStart(sf), st.getEnd()))) continue;
    intent += lines.filter((l) => !HAND_PLUMBING.some((re) => re.test(src[l]!))).length;
  }
  return { file: path, lines: counted, intent };
}

export function suiteFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) return suiteFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

export interface SuiteCount {
  suite: string;
  files: number;
  /** Every line of its non-test files, as `wc -l` counts them. */
  rawLines: number;
  /** The largest non-test file's line count, and its name. */
  largest: { file: string; lines: number };
  code: number;
  intent: number;
  share: number;
}

export function countSuites(root: string): SuiteCount[] {
  return readdirSync(root)
    .filter((d) => statSync(join(root, d)).isDirectory())
    .sort()
    .map((suite) => {
      const files = suiteFiles(join(root, suite));
      const counts = files.map((f) => countFile(f));
      const raw = files.map((f) => ({
        file: relative(root, f),
        lines: readFileSync(f, 'utf8').split('\n').length - 1,
      }));
      const code = counts.reduce((n, c) => n + c.lines, 0);
      const intent = counts.reduce((n, c) => n + c.intent, 0);
      return {
        suite,
        files: files.length,
        rawLines: raw.reduce((n, r) => n + r.lines, 0),
        largest: raw.reduce((a, b) => (b.lines > a.lines ? b : a), { file: '', lines: 0 }),
        code,
        intent,
        share: code ? intent / code : 0,
      };
    });
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) {
  const args = process.argv.slice(2);
  const root = resolve(args.find((a) => !a.startsWith('--')) ?? join(import.meta.dirname, '..', 'suites'));
  const rows = countSuites(root);
  if (args.includes('--json')) {
    console.log(JSON.stringify(rows, null, 2));
  } else {
    const pct = (x: number) => `${Math.round(x * 100)}%`;
    console.log('suite                          files  lines  code  intent  share  largest file');
    for (const r of rows)
      console.log(
        `${r.suite.padEnd(30)} ${String(r.files).padStart(5)} ${String(r.rawLines).padStart(6)} ${String(r.code).padStart(5)} ${String(r.intent).padStart(7)} ${pct(r.share).padStart(6)}  ${r.largest.file} (${r.largest.lines})`,
      );
    const code = rows.reduce((n, r) => n + r.code, 0);
    const intent = rows.reduce((n, r) => n + r.intent, 0);
    const raw = rows.reduce((n, r) => n + r.rawLines, 0);
    console.log(
      `${'all'.padEnd(30)} ${''.padStart(5)} ${String(raw).padStart(6)} ${String(code).padStart(5)} ${String(intent).padStart(7)} ${pct(intent / code).padStart(6)}`,
    );
  }
}
