// The environment spec's public face: resolve a spec from a file, CREDPROV_*
// variables and flags, defaulted and validated, or a ConfigError listing every problem.
import { ConfigError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { applyDefaults, type PartialSpec } from './defaults.ts';
import { applyEnv, loadSpecFile } from './load.ts';
import type { EnvironmentSpec } from './types.ts';
import { validateSpec } from './validate.ts';

export type { EnvironmentSpec, PartialSpec };
export { applyDefaults, validateSpec };
export { parseSpec, loadSpecFile, ENV_VARS, applyEnv } from './load.ts';

/** Defaults ← file ← CREDPROV_* env ← `overrides` (flags, suite needs). */
export async function loadSpec(
  o: { file?: string; env?: NodeJS.ProcessEnv; overrides?: PartialSpec; log?: Logger } = {},
): Promise<EnvironmentSpec> {
  const fromFile = o.file ? await loadSpecFile(o.file) : {};
  const withEnv = applyEnv(fromFile, o.env ?? {}, o.log);
  return finalizeSpec(mergePartial(withEnv, o.overrides ?? {}), o.file);
}

export function finalizeSpec(partial: PartialSpec, file?: string): EnvironmentSpec {
  const spec = applyDefaults(partial);
  const problems = validateSpec(spec);
  if (problems.length > 0) {
    throw new ConfigError(
      `${file ?? 'environment spec'}: ${problems.length} problem${problems.length > 1 ? 's' : ''}`,
      { ...(file ? { file } : {}), problems },
    );
  }
  return spec;
}

/** Field-wise merge: nested objects merge, lists and scalars from `over` replace. */
export function mergePartial(base: PartialSpec, over: PartialSpec): PartialSpec {
  return merge(base, over) as PartialSpec;
}

function merge(a: unknown, b: unknown): unknown {
  if (b === undefined) return a;
  if (isObject(a) && isObject(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = merge(a[k], v);
    return out;
  }
  return b;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
