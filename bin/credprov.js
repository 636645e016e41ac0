#!/usr/bin/env node
// Entry point. In a checkout it runs the TypeScript sources through Node's type
// stripping; the npm package has no sources and runs them compiled to dist/
// (Node refuses to strip types under node_modules). Both need Node >= 22.18
// (package.json engines): say so plainly on an older Node, before any import
// that would fail there with a stack trace. This file is plain JavaScript that
// any Node able to load an ES module parses.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const sources = new URL('../src/cli/main.ts', import.meta.url);
const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
const inCheckout = existsSync(fileURLToPath(sources));

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  const reason = `credprov needs Node >= 22.18, this is ${process.version}`;
  const hint = inCheckout
    ? 'run scripts/setup.sh, which installs a pinned Node 24 under ~/.cache/credprov, then use scripts/credprov'
    : 'install Node.js 22.18 or newer (nodejs.org, or your version manager), then run credprov again';
  process.stderr.write(`error: ${reason}\n  hint: ${hint}\n`);
  // --json promises one JSON document on stdout, errors included (exit code 3: this machine lacks something).
  if (process.argv.includes('--json'))
    process.stdout.write(`${JSON.stringify({ error: reason, hint, exitCode: 3 })}\n`);
  process.exit(3);
}
// The node modules: a checkout has none until `npm ci` (scripts/setup.sh runs
// it); without them the first command would end in "Cannot find package …".
// Resolving (not loading) each dependency costs a few milliseconds.
const missing = [];
const { readFileSync } = await import('node:fs');
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
for (const dep of Object.keys(manifest.dependencies ?? {})) {
  try {
    import.meta.resolve(dep);
  } catch {
    missing.push(dep);
  }
}
if (missing.length > 0) {
  const reason = `credprov's node modules are not installed (${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing)`;
  const hint = inCheckout
    ? `run npm ci in ${fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '')} (or scripts/setup.sh, which also installs a pinned Node), then run credprov again`
    : 'reinstall credprov (npm install -g, or npm ci in the directory it was installed from)';
  process.stderr.write(`error: ${reason}\n  hint: ${hint}\n`);
  // --json: one JSON document on stdout, errors included (exit code 3: this machine lacks something).
  if (process.argv.includes('--json'))
    process.stdout.write(`${JSON.stringify({ error: reason, hint, exitCode: 3 })}\n`);
  process.exit(3);
}
// Node's on-disk compile cache: compiling ~100 modules (and, from sources,
// stripping their types) otherwise costs more than most commands (0.5s → 0.2s
// for --help on a busy host).
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
// The sources win whenever they are there, so a checkout never runs a stale dist/.
const { main } = await import(inCheckout ? sources.href : compiled.href);
process.exitCode = await main(process.argv.slice(2));
