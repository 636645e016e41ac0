// Flag parsing on node:util parseArgs (strict), turning its errors into
// one-line usage errors with a "did you mean" for typos.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../core/errors.ts';
import { closest } from '../core/closest.ts';

export { closest };

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

export interface Parsed<T> {
  values: T;
  positionals: string[];
}

export function parseFlags<T = Record<string, string | boolean | string[] | undefined>>(
  command: string,
  argv: string[],
  options: FlagSpec,
  opts: { positionals?: boolean } = {},
): Parsed<T> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options,
      strict: true,
      allowPositionals: opts.positionals ?? false,
    });
    return { values: values as T, positionals };
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const unknown = /Unknown option '(--?[^']+)'/.exec(msg);
    if (unknown) {
      const flag = unknown[1]!.replace(/^-+/, '').split('=')[0]!;
      const near = closest(flag, Object.keys(options));
      throw new UsageError(`${command}: unknown flag --${flag}${near ? ` (did you mean --${near}?)` : ''}`, {
        hint: `run 'credprov ${command} --help' for the flags it takes`,
      });
    }
    const positional = /Unexpected argument '([^']+)'/.exec(msg);
    if (positional)
      throw new UsageError(`${command}: unexpected argument '${positional[1]}'`, {
        hint: `run 'credprov ${command} --help'`,
      });
    throw new UsageError(`${command}: ${msg.replace(/\. To specify.*$/s, '')}`, {
      hint: `run 'credprov ${command} --help'`,
    });
  }
}

export function requireFlag<T>(command: string, name: string, value: T | undefined): T {
  if (value === undefined || value === '')
    throw new UsageError(`${command}: --${name} is required`, { hint: `run 'credprov ${command} --help'` });
  return value;
}
