// The import graph of credprov's own TypeScript, read from the files' relative
// imports (static, re-exports, dynamic import() of a literal), and the rooms'
// rules over it (one direction, as the design has it):
// - no module is part of an import circle;
// - a model never imports the fake it predicts (fake clouds, vendor labs, fixtures);
// - registry/ depends on the core and the container engines only, and the rest
//   reaches it through its one entry, registry/index.ts;
// - wire types (src/api) never import models (src/model);
// - nothing in src/ imports fixtures/ (fixtures use src/, not the other way).
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TREES = ['src', 'registry', 'suites', 'fixtures', 'scripts', 'test'];

type Graph = Map<string, string[]>;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'testdata' ? [] : tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The relative module specifiers a file imports: `import … from`, `export … from`, `import '…'`, `import('…')`. */
function relativeImports(text: string): string[] {
  const out: string[] = [];
  // A statement that starts a line: comments ("// import x from …") and template strings do not.
  const statements =
    /^[ \t]*(?:import\s+[^;'"`]*?\bfrom\s*|import\s*|export\s+(?:type\s+)?(?:\*|\{)[^;'"`]*?\bfrom\s*)['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const m of text.matchAll(statements)) out.push(m[1]!);
  for (const m of text.matchAll(/\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

/** Files (relative to ROOT) and the files they import, among the files given. */
function importGraph(files: string[]): Graph {
  const known = new Set(files);
  const graph: Graph = new Map();
  for (const f of files) {
    const deps = relativeImports(readFileSync(join(ROOT, f), 'utf8'))
      .map((s) => relative(ROOT, resolve(ROOT, dirname(f), s)))
      .filter((d) => known.has(d));
    graph.set(f, [...new Set(deps)]);
  }
  return graph;
}

/** One circle per strongly connected component of more than one module (or a module importing itself), as a path a → … → a. */
function importCircles(graph: Graph): string[][] {
  // Tarjan's algorithm, iteratively: the graph is a few hundred modules deep at most, but recursion depth is not worth the risk.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; i: number }> = [{ node: start, i: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const deps = graph.get(top.node) ?? [];
      if (top.i < deps.length) {
        const d = deps[top.i++]!;
        if (!index.has(d)) {
          index.set(d, next);
          low.set(d, next++);
          stack.push(d);
          onStack.add(d);
          work.push({ node: d, i: 0 });
        } else if (onStack.has(d)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(d)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let n: string;
        do {
          n = stack.pop()!;
          onStack.delete(n);
          component.push(n);
        } while (n !== top.node);
        if (component.length > 1 || deps.includes(top.node)) components.push(component);
      }
    }
  }
  return components.map((c) => circleIn(graph, new Set(c)));
}

/** A shortest path from the component's first module (by name) back to itself, within the component. */
function circleIn(graph: Graph, component: Set<string>): string[] {
  const start = [...component].sort()[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const n = queue.shift()!;
    for (const d of graph.get(n) ?? []) {
      if (!component.has(d)) continue;
      if (d === start) {
        const path = [n];
        while (path[0] !== start) path.unshift(from.get(path[0]!)!);
        return [...path, start];
      }
      if (!from.has(d)) {
        from.set(d, n);
        queue.push(d);
      }
    }
  }
  return [start, start];
}

const graph = importGraph(TREES.flatMap((t) => tsFiles(join(ROOT, t))).map((f) => relative(ROOT, f)));

describe('the import graph', () => {
  test('is read from the sources (the walker sees static, re-exported and dynamic imports)', () => {
    expect(
      relativeImports(
        `import { a } from './a.ts';\nimport type {\n  B,\n} from "../b.ts";\nexport { c } from './c.ts';\nexport * from './c2.ts';\nimport './d.ts';\n// import { e } from './e.ts';\nexport const main = runnableModule('./main.ts');\nconst f = await import('./f.ts');\nimport { g } from 'node:fs';`,
      ),
    ).toEqual(['./a.ts', '../b.ts', './c.ts', './c2.ts', './d.ts', './f.ts']);
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('registry/index.ts')).toEqual(
      expect.arrayContaining(['registry/container.ts', 'registry/process.ts', 'src/core/logger.ts']),
    );
  });

  test('the circle finder finds circles, and only circles', () => {
    const g: Graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']],
    ]);
    expect(importCircles(g)).toEqual(
      expect.arrayContaining([
        ['a', 'b', 'c', 'a'],
        ['e', 'e'],
      ]),
    );
    expect(importCircles(g)).toHaveLength(2);
  });

  test(`has no import circle in ${TREES.join(', ')}`, () => {
    expect(importCircles(graph).map((c) => c.join(' → '))).toEqual([]);
  });

  test('a model never imports the fake it predicts (src/fake-clouds, src/vendor-labs, src/plugin/vendors, fixtures)', () => {
    const fakes = ['src/fake-clouds/', 'src/vendor-labs/', 'src/plugin/vendors/', 'fixtures/'];
    expect(
      offending(
        (f) => f.startsWith('src/model/'),
        (d) => fakes.some((x) => d.startsWith(x)),
      ),
    ).toEqual([]);
  });

  test('registry/ depends on the core and the container engines only (src/core, src/engine; src/testing in tests)', () => {
    expect(
      offending(
        (f) => f.startsWith('registry/'),
        (d, f) =>
          !d.startsWith('registry/') &&
          !d.startsWith('src/core/') &&
          !d.startsWith('src/engine/') &&
          !(f.endsWith('.test.ts') && d.startsWith('src/testing/')),
      ),
    ).toEqual([]);
  });

  test('code outside registry/ reaches it only through registry/index.ts', () => {
    expect(
      offending(
        (f) => !f.startsWith('registry/'),
        (d) => d.startsWith('registry/') && d !== 'registry/index.ts',
      ),
    ).toEqual([]);
  });

  test('wire types (src/api) never import models (src/model)', () => {
    expect(
      offending(
        (f) => f.startsWith('src/api/'),
        (d) => d.startsWith('src/model/'),
      ),
    ).toEqual([]);
  });

  test('nothing in src/ imports fixtures/ (tests included: fixtures build on src/, not the other way)', () => {
    expect(
      offending(
        (f) => f.startsWith('src/'),
        (d) => d.startsWith('fixtures/'),
      ),
    ).toEqual([]);
  });
});

/** `importer → imported` for every import of a file `from` selects that `to` selects (`to` also sees the importer). */
function offending(from: (f: string) => boolean, to: (d: string, f: string) => boolean): string[] {
  return [...graph]
    .filter(([f]) => from(f))
    .flatMap(([f, deps]) => deps.filter((d) => to(d, f)).map((d) => `${f} → ${d}`));
}

/**
 * What a suite may import: the suite kit (one module), the models, the
 * matching oracle, the wire types and the version table, and its own folder
 * (suites/index.ts lists the suites). Anything else a suite needs becomes kit
 * API, so a newcomer reads in src/run/kit.ts what a suite may touch.
 */
const SUITE_MAY_IMPORT = [/^src\/run\/kit\.ts$/, /^src\/(model|matching|api|versions)\//];

function suiteBoundaryCrossings(g: Graph): string[] {
  return [...g].flatMap(([f, deps]) => {
    const m = /^suites\/([^/]+)\//.exec(f);
    if (!f.startsWith('suites/')) return [];
    return deps
      .filter(
        (d) =>
          !SUITE_MAY_IMPORT.some((re) => re.test(d)) &&
          !(m ? d.startsWith(`suites/${m[1]}/`) : /^suites\/[^/]+\/index\.ts$/.test(d)),
      )
      .map((d) => `${f} → ${d}`);
  });
}

describe('the suite boundary', () => {
  test('is read from the graph: a suite file importing a core module past the kit is a crossing', () => {
    const g: Graph = new Map([
      ['suites/a/cases.ts', ['src/run/kit.ts', 'src/model/x.ts', 'suites/a/plan.ts', 'src/cluster/api.ts']],
      ['suites/a/plan.ts', ['suites/b/plan.ts', 'src/versions/table.ts']],
      ['suites/index.ts', ['suites/a/index.ts', 'src/run/suite.ts']],
      ['src/run/kit.ts', ['src/cluster/api.ts']],
    ]);
    expect(suiteBoundaryCrossings(g)).toEqual([
      'suites/a/cases.ts → src/cluster/api.ts',
      'suites/a/plan.ts → suites/b/plan.ts',
      'suites/index.ts → src/run/suite.ts',
    ]);
  });

  test('no suite imports past the kit, src/model, src/matching, src/api and src/versions', () => {
    expect(suiteBoundaryCrossings(graph)).toEqual([]);
  });
});
