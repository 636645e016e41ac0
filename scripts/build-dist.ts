// Builds dist/, the compiled tree the npm package ships; `npm pack` runs it as
// prepack, and with --clean as postpack. Node refuses to strip types from .ts
// files under node_modules, so an installed credprov must run JavaScript:
// tsc emits src/, registry/, suites/ and the two fake plugins with their
// relative imports rewritten to .js (tsconfig.build.json), tests left out.
// The few other files credprov reads or execs at run time beside its own
// modules are copied to the same place relative to them, so every
// import.meta.url-relative path holds in dist/ as it does in the checkout.
//
//   node scripts/build-dist.ts           build dist/ from scratch
//   node scripts/build-dist.ts --clean   remove dist/
import { spawnSync } from 'node:child_process';
import { access, chmod, constants, copyFile, mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');

/** Non-TypeScript files the CLI needs at run time, by their path in the checkout. */
const RUNTIME_FILES = [
  // Wrappers that start the fakes with any Node on a kubelet's or client's minimal PATH.
  'fixtures/fake-credential-provider/credprov-fake-provider',
  'fixtures/fake-exec-plugin/fake-exec-plugin',
  'fixtures/fake-exec-plugin/README.md',
  // `registry up --seed` and the suites build the static pause image from it.
  'registry/image/pause/main.go',
  // The client probes of certify exec-plugin --clients and the exec-plugin suites: built or run from these.
  'src/clients/client-go-probe/main.go',
  'src/clients/python-probe/probe.py',
  'src/clients/python-probe/requirements.txt',
];

/** Modules the CLI starts as processes of their own; a missing one fails only when first used, so check here. */
const RUNNABLE_MODULES = [
  'src/cli/main.js',
  'fixtures/fake-credential-provider/main.js',
  'fixtures/fake-exec-plugin/main.js',
  'registry/token-server-main.js',
  'registry/container-log-main.js',
];

async function build(): Promise<void> {
  const started = Date.now();
  await rm(DIST, { recursive: true, force: true });
  const tsc = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
    { stdio: 'inherit' },
  );
  if (tsc.status !== 0) fail(`tsc -p tsconfig.build.json failed (exit ${tsc.status ?? tsc.signal})`);
  for (const file of RUNTIME_FILES) {
    const to = join(DIST, file);
    await mkdir(dirname(to), { recursive: true });
    await copyFile(join(ROOT, file), to);
    await chmod(to, (await stat(join(ROOT, file))).mode & 0o777);
  }
  for (const file of RUNNABLE_MODULES) {
    await access(join(DIST, file), constants.R_OK).catch(() =>
      fail(`dist/${file} was not emitted; is it still in tsconfig.build.json's include?`),
    );
  }
  process.stderr.write(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
}

function fail(message: string): never {
  process.stderr.write(`error: build-dist: ${message}\n`);
  process.exit(1);
}

if (process.argv.includes('--clean')) await rm(DIST, { recursive: true, force: true });
else await build();
