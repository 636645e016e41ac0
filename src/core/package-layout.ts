// credprov runs from two layouts: a checkout, where Node strips the types of
// the .ts sources, and the npm package, which ships them compiled to dist/
// (Node refuses to strip types under node_modules). Code that names one of
// credprov's own files at run time goes through here, so it holds in both.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A module credprov starts as its own process (`node <file>`: the fake
 * provider, the token server), named as it is in the sources (.ts) relative
 * to the caller's import.meta.url. A caller compiled to .js gets the .js
 * sibling, which the build emits at the same relative place.
 */
export function runnableModule(relative: string, callerUrl: string): string {
  const compiled = callerUrl.endsWith('.js');
  return fileURLToPath(new URL(compiled ? relative.replace(/\.ts$/, '.js') : relative, callerUrl));
}

/** The nearest directory above `from` holding credprov's package.json: the checkout, or the installed package. */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string | undefined {
  for (let dir = dirname(from), up = 0; up < 8; dir = dirname(dir), up++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'credprov') return dir;
      } catch {
        // Someone else's unreadable package.json: keep looking upwards.
      }
    }
    if (dirname(dir) === dir) break;
  }
  return undefined;
}

function readVersion(): string {
  const root = packageRoot();
  if (!root) return '0.0.0-unknown';
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof version === 'string' ? version : '0.0.0-unknown';
}

/** credprov's version: package.json's, the one place npm pack stamps the tarball from. */
export const CREDPROV_VERSION: string = readVersion();
