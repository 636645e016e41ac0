// Strict decoding of a CredentialProviderConfig as the kubelet does it since
// 1.32 (sigs.k8s.io/yaml + sigs.k8s.io/json strict mode): YAML is read with
// YAML 1.1 scalars (yes/no/on/off are booleans, as in go-yaml v2), field
// names are case-sensitive, unknown and duplicate fields are errors, and a
// value of the wrong JSON type fails the whole decode. Problems carry the
// kubelet's field paths (providers[0].tokenAttributes.cacheType) and a line.
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Document,
  type Node,
  type ParsedNode,
} from 'yaml';
import { ConfigError, type FieldProblem } from '../../core/errors.ts';
import { closest } from '../../core/closest.ts';
import { JsonSyntaxError, parseFirstJsonValue } from './jsonvalue.ts';

export type FieldType =
  | { kind: 'string' }
  /** metav1.Duration: must be a JSON string that time.ParseDuration accepts (checked in validation). */
  | { kind: 'duration' }
  | { kind: 'bool' }
  | { kind: 'list'; of: FieldType }
  | { kind: 'object'; fields: Record<string, FieldType> };

export interface DecodeProblem extends FieldProblem {
  /** 'syntax' never reaches here (it throws); 'type' is fatal in Go, 'unknown'/'duplicate' are strict errors. */
  kind: 'type' | 'unknown' | 'duplicate';
  line?: number;
}

export interface Decoded {
  value: Record<string, unknown>;
  problems: DecodeProblem[];
  /** Line of each field path, for messages. */
  lines: Map<string, number>;
}

/** Parses YAML or JSON text into a plain object, or throws a one-line ConfigError naming the file and line. */
export function parseDocument(text: string, file: string): { doc: Document.Parsed | undefined; lines: LineCounter } {
  const lines = new LineCounter();
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const fail = (offset: number, msg: string): never => {
      const before = text.slice(0, offset).split('\n');
      throw new ConfigError(
        `${file}:${before.length}:${before[before.length - 1]!.length + 1}: not valid JSON: ${msg}`,
        {
          file,
          hint: 'a CredentialProviderConfig is a YAML or JSON document with apiVersion, kind and providers',
        },
      );
    };
    try {
      const { end } = parseFirstJsonValue(text);
      const rest = text.slice(end);
      if (rest.trim() !== '')
        fail(end + (rest.length - rest.trimStart().length), 'extra content after the JSON document');
    } catch (e) {
      if (e instanceof JsonSyntaxError) fail(e.offset, e.message);
      throw e;
    }
  }
  const docs = parseAllDocuments(text, {
    lineCounter: lines,
    uniqueKeys: false,
    version: '1.1',
    merge: true,
    prettyErrors: true,
  });
  const list = Array.isArray(docs) ? docs : [];
  const first = list.find((d) => d.contents !== null) ?? list[0];
  for (const d of list) {
    const err = d.errors[0];
    if (err) {
      const pos = err.linePos?.[0];
      const where = pos ? `:${pos.line}:${pos.col}` : '';
      const what = err.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      throw new ConfigError(`${file}${where}: not valid YAML: ${what}`, {
        file,
        hint: 'a CredentialProviderConfig is a YAML or JSON document with apiVersion, kind and providers',
      });
    }
  }
  return { doc: first, lines };
}

/** Walks the parsed document against the schema, collecting every decode problem. */
export function decodeAgainst(
  doc: Document.Parsed | undefined,
  lines: LineCounter,
  schema: FieldType & { kind: 'object' },
): Decoded {
  const problems: DecodeProblem[] = [];
  const lineOf = new Map<string, number>();
  const root = doc?.contents ?? null;
  const lineAt = (n: Node | null | undefined): number | undefined => {
    const r = (n as ParsedNode | null | undefined)?.range;
    return r ? lines.linePos(r[0]).line : undefined;
  };
  const deref = (n: unknown): unknown => (isAlias(n) && doc ? n.resolve(doc) : n);

  const walk = (raw: unknown, type: FieldType, path: string): unknown => {
    const node = deref(raw) as Node | null;
    const line = lineAt(node);
    if (line !== undefined && path !== '') lineOf.set(path, line);
    const at = line !== undefined ? ` (line ${line})` : '';
    if (node === null || node === undefined || (isScalar(node) && node.value === null)) return undefined;
    const got = describe(node);
    const typeProblem = (want: string) => {
      problems.push({
        kind: 'type',
        field: path || '<root>',
        message: `Invalid value: ${got.shown}: must be ${want}, not ${got.what}${at}${got.hint}`,
        ...(line !== undefined ? { line } : {}),
      });
      return undefined;
    };
    switch (type.kind) {
      case 'string':
      case 'duration':
        if (isScalar(node) && typeof scalarValue(node) === 'string') return scalarValue(node);
        return typeProblem(type.kind === 'duration' ? 'a quoted duration string such as "5m"' : 'a string');
      case 'bool':
        if (isScalar(node) && typeof scalarValue(node) === 'boolean') return scalarValue(node);
        return typeProblem('a boolean (true or false)');
      case 'list': {
        if (!isSeq(node)) return typeProblem('a list');
        return node.items.map((item, i) => walk(item, type.of, `${path}[${i}]`) ?? zeroOf(type.of));
      }
      case 'object': {
        if (!isMap(node)) return typeProblem('a mapping of fields');
        const out: Record<string, unknown> = {};
        const seen = new Set<string>();
        const pairs = expandMerges(node, deref);
        for (const { key, value, merged } of pairs) {
          const name = keyName(deref(key));
          const childPath = path === '' ? name : `${path}.${name}`;
          if (seen.has(name)) {
            if (!merged) {
              const l = lineAt(key as Node);
              problems.push({
                kind: 'duplicate',
                field: childPath,
                message: `duplicate field${l !== undefined ? ` (line ${l})` : ''}`,
                ...(l !== undefined ? { line: l } : {}),
              });
            }
            continue;
          }
          seen.add(name);
          const fieldType = type.fields[name];
          if (!fieldType) {
            const l = lineAt(key as Node);
            const near =
              closest(name, Object.keys(type.fields)) ??
              Object.keys(type.fields).find((f) => f.toLowerCase() === name.toLowerCase());
            problems.push({
              kind: 'unknown',
              field: childPath,
              message: `unknown field${l !== undefined ? ` (line ${l})` : ''}${near ? `; did you mean "${near}"?` : ''}`,
              ...(l !== undefined ? { line: l } : {}),
            });
            continue;
          }
          const v = walk(value, fieldType, childPath);
          if (v !== undefined) out[name] = v;
        }
        return out;
      }
    }
  };

  const value = walk(root, schema, '');
  return { value: (value as Record<string, unknown> | undefined) ?? {}, problems, lines: lineOf };
}

function zeroOf(t: FieldType): unknown {
  return t.kind === 'string' || t.kind === 'duration' ? '' : t.kind === 'bool' ? false : t.kind === 'list' ? [] : {};
}

// go-yaml v2 has no base-60 numbers and decodes timestamps as strings when the
// target is untyped; the yaml package's 1.1 schema does both, so undo them.
function scalarValue(node: Node & { value: unknown; source?: string }): unknown {
  const v = node.value;
  const src = typeof node.source === 'string' ? node.source : undefined;
  if (v instanceof Date) return src ?? v.toISOString();
  if (typeof v === 'number' && src !== undefined && src.includes(':')) return src;
  if (typeof v === 'bigint') return Number(v);
  return v;
}

function describe(node: Node): { what: string; shown: string; hint: string } {
  if (isMap(node)) return { what: 'a mapping', shown: '{…}', hint: '' };
  if (isSeq(node)) return { what: 'a list', shown: '[…]', hint: '' };
  if (isScalar(node)) {
    const v = scalarValue(node as Node & { value: unknown; source?: string });
    const src = (node as { source?: string }).source;
    if (typeof v === 'boolean') {
      const yaml11 = src !== undefined && !/^(true|false)$/i.test(src);
      return {
        what: 'a boolean',
        shown: String(v),
        hint: yaml11 ? `; YAML reads ${JSON.stringify(src)} as a boolean, quote it` : '',
      };
    }
    if (typeof v === 'number') return { what: 'a number', shown: String(src ?? v), hint: '; quote it' };
    if (typeof v === 'string') return { what: 'a string', shown: JSON.stringify(v), hint: '' };
  }
  return { what: 'another type', shown: '?', hint: '' };
}

function keyName(key: unknown): string {
  if (isScalar(key)) return String(scalarValue(key as Node & { value: unknown; source?: string }));
  return String(key);
}

interface PairLike {
  key: unknown;
  value: unknown;
  merged: boolean;
}

// YAML merge keys (<<: *anchor) as go-yaml v2 applies them: explicit keys win.
function expandMerges(map: { items: { key: unknown; value: unknown }[] }, deref: (n: unknown) => unknown): PairLike[] {
  const own: PairLike[] = [];
  const merged: PairLike[] = [];
  for (const item of map.items) {
    if (isScalar(item.key) && item.key.value === '<<') {
      const src = deref(item.value);
      const sources = isSeq(src) ? src.items.map(deref) : [src];
      for (const s of sources)
        if (isMap(s)) for (const it of s.items) merged.push({ key: it.key, value: it.value, merged: true });
      continue;
    }
    own.push({ key: item.key, value: item.value, merged: false });
  }
  return [...own, ...merged];
}
