// A comparison's two values split into the steps a reader compares one by
// one. Suites fill `predicted` and `observed` with any JSON: an object keyed
// by step ({beforeDowngrade, afterDowngrade}, one key per matrix cell), an
// array of steps (pulls, requests), or one value. A step's own `same` is
// plain equality of its two values; whether the comparison as a whole agrees
// stays what the suite's judge decided (it may allow a tolerance).
import { isDeepStrictEqual } from 'node:util';
import type { Comparison } from './model.ts';

export interface Step {
  name: string;
  /** undefined: the side has no such step. */
  predicted: unknown;
  observed: unknown;
  same: boolean;
}

/** Keys that name an array element's step, in the order they are tried: the first that is a string in every element. */
const NAME_KEYS = ['label', 'step', 'pull', 'name', 'image', 'cell', 'policy'];
/** "step: value" strings (the downgrade suite's arrays) split at the first ": ". */
const PREFIXED = /^(.{1,160}?): (.*)$/s;

type Entries = Array<[string, unknown]>;

export function stepsOf(c: Pick<Comparison, 'predicted' | 'observed'>): Step[] {
  const pair = entriesOf(c.predicted, c.observed);
  if (!pair) return [step('outcome', c.predicted, c.observed)];
  const [predicted, observed] = pair.map((e) => new Map(e)) as [Map<string, unknown>, Map<string, unknown>];
  const names = [...new Set([...predicted.keys(), ...observed.keys()])];
  if (names.length === 0) return [step('outcome', c.predicted, c.observed)];
  return names.map((n) => step(n, predicted.get(n), observed.get(n)));
}

function step(name: string, predicted: unknown, observed: unknown): Step {
  return { name, predicted, observed, same: isDeepStrictEqual(predicted, observed) };
}

/** Both values as named entries, or undefined when they do not split the same way (then the comparison is one step). */
function entriesOf(predicted: unknown, observed: unknown): [Entries, Entries] | undefined {
  if (isRecord(predicted) && isRecord(observed)) return [Object.entries(predicted), Object.entries(observed)];
  if (!Array.isArray(predicted) || !Array.isArray(observed)) return undefined;
  const both = [...predicted, ...observed];
  const key = NAME_KEYS.find((k) => both.every((x) => isRecord(x) && typeof x[k] === 'string'));
  if (key) {
    const named = (a: unknown[]) => uniqueNames(a.map((x) => elementEntry(x as Record<string, unknown>, key)));
    const [p, o] = [named(predicted), named(observed)];
    if (p && o) return [p, o];
  }
  const prefixed = (a: unknown[]) =>
    uniqueNames(
      a.map((x): [string, unknown] | undefined => {
        const m = typeof x === 'string' ? PREFIXED.exec(x) : null;
        return m ? [m[1]!, m[2]!] : undefined;
      }),
    );
  const [p, o] = [prefixed(predicted), prefixed(observed)];
  // Only when both sides name the same steps: otherwise a ": " inside a value would invent steps.
  if (p && o && isDeepStrictEqual(new Set(p.map((e) => e[0])), new Set(o.map((e) => e[0])))) return [p, o];
  const indexed = (a: unknown[]): Entries => a.map((x, i) => [`#${i + 1}`, x]);
  return [indexed(predicted), indexed(observed)];
}

/** An element without its name key; a lone remaining field stays an object, so its name still shows. */
function elementEntry(x: Record<string, unknown>, key: string): [string, unknown] {
  const { [key]: name, ...rest } = x;
  return [name as string, rest];
}

function uniqueNames(entries: Array<[string, unknown] | undefined>): Entries | undefined {
  if (entries.some((e) => e === undefined)) return undefined;
  const all = entries as Entries;
  return new Set(all.map((e) => e[0])).size === all.length ? all : undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The model's reasoning as its clauses, when it is long enough to need them:
 * split at " | " (between steps) if it has any, else at "; ", never inside
 * parentheses (the cache model nests its per-pull reasons in them).
 */
export function clausesOf(because: string, longerThan = 160): string[] {
  if (because.length <= longerThan) return [because];
  const separator = topLevel(because, ' | ').length > 1 ? ' | ' : '; ';
  return topLevel(because, separator)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function topLevel(text: string, separator: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && text.startsWith(separator, i)) {
      out.push(text.slice(start, i));
      start = i + separator.length;
    }
  }
  out.push(text.slice(start));
  return out;
}
