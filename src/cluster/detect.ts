// Picks an environment provider (kind's facade): by name, or by asking each
// one's isAvailable() in a fixed order and saying why each was passed over.
// Also finds environments that earlier commands brought up (env.json).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProviderName } from '../api/spec/types.ts';
import { PrerequisiteError } from '../core/errors.ts';
import { noopLogger, type Logger } from '../core/logger.ts';
import { stateDir } from '../core/paths.ts';
import { existingProvider } from './existing/index.ts';
import { kindProvider } from './kind/index.ts';
import { localProvider } from './local/index.ts';
import type { Environment, EnvironmentProvider } from './provider.ts';

/** Auto-detection order: local processes first (fast, no Docker), then kind. */
export const DETECT_ORDER: ProviderName[] = ['local', 'kind'];

export interface ProviderOptions {
  log?: Logger;
  env?: NodeJS.ProcessEnv;
}

export function providerByName(name: ProviderName, o: ProviderOptions = {}): EnvironmentProvider {
  const opts = { ...(o.log ? { log: o.log } : {}), ...(o.env ? { env: o.env } : {}) };
  switch (name) {
    case 'local':
      return localProvider(opts);
    case 'kind':
      return kindProvider(opts);
    case 'existing':
      return existingProvider(o.env ? { env: o.env } : {});
  }
}

export async function detectProvider(
  o: ProviderOptions = {},
  order: ProviderName[] = DETECT_ORDER,
): Promise<EnvironmentProvider> {
  const log = o.log ?? noopLogger;
  const reasons: string[] = [];
  for (const name of order) {
    const p = providerByName(name, o);
    const a = await p.isAvailable();
    if (a.ok) return p;
    log.debug(`provider ${name} passed over: ${a.reason}`);
    reasons.push(`${name}: ${a.reason}`);
  }
  throw new PrerequisiteError('no environment provider can run on this machine', {
    detail: reasons.join('\n'),
    hint: "run 'credprov doctor' for what each provider needs",
  });
}

export async function resolveProvider(
  name: ProviderName | 'auto',
  o: ProviderOptions = {},
): Promise<EnvironmentProvider> {
  return name === 'auto' ? detectProvider(o) : providerByName(name, o);
}

/** The environment an earlier `credprov up` left running under `name`, if any. */
export async function readEnvironment(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Environment | undefined> {
  try {
    return JSON.parse(await readFile(join(stateDir(env), 'env', name, 'env.json'), 'utf8')) as Environment;
  } catch {
    return undefined;
  }
}

/** Names of environment state dirs (complete or left by a crashed run). */
export async function listEnvironmentNames(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  return readdir(join(stateDir(env), 'env')).catch(() => [] as string[]);
}
