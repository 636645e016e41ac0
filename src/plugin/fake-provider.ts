// Installs the fake credential provider (fixtures/fake-credential-provider)
// into a kubelet's --image-credential-provider-bin-dir. The kubelet execs
// <bin-dir>/<provider name> with its own environment, which may lack PATH or
// anything credprov sets, so the installed wrapper has every path baked in:
// Node, the fake's main.ts, the scenario and the request log.
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runnableModule } from '../core/package-layout.ts';
import { shellQuote as q, writeScript } from '../core/shell-script.ts';
import { readInvocationLog } from './invocation.ts';

// The fake's main module: main.ts in a checkout, the compiled main.js in the npm package.
export const FAKE_PROVIDER_MAIN = runnableModule('../../fixtures/fake-credential-provider/main.ts', import.meta.url);
export const FAKE_PROVIDER_WRAPPER = fileURLToPath(
  new URL('../../fixtures/fake-credential-provider/credprov-fake-provider', import.meta.url),
);
/** A catalogue plugin by name (fixtures/plugins/<name>). */
export const catalogueDir = fileURLToPath(new URL('../../fixtures/plugins/', import.meta.url));

export interface FakeProviderInstall {
  binDir: string;
  /** The provider entry's name: the file the kubelet will exec. */
  name: string;
  scenarioFile: string;
  /** JSONL request log; default none. */
  logFile?: string;
  /** Node binary; default the one running credprov. */
  node?: string;
}

/** Writes <binDir>/<name>; returns its path. Atomic, so a kubelet never sees half a script. */
export async function installFakeProvider(o: FakeProviderInstall): Promise<string> {
  await mkdir(o.binDir, { recursive: true });
  const path = join(o.binDir, o.name);
  const script = [
    '#!/bin/sh',
    '# credprov fake credential provider (installed by credprov; paths are absolute',
    '# because the kubelet may run plugins with a minimal environment).',
    "# A provider entry's env (CREDPROV_FAKE_SCENARIO, CREDPROV_FAKE_LOG) wins over these defaults.",
    `: "\${CREDPROV_FAKE_SCENARIO:=${o.scenarioFile.replace(/["\\$`]/g, '\\$&')}}"`,
    'export CREDPROV_FAKE_SCENARIO',
    ...(o.logFile
      ? [`: "\${CREDPROV_FAKE_LOG:=${o.logFile.replace(/["\\$`]/g, '\\$&')}}"`, 'export CREDPROV_FAKE_LOG']
      : []),
    'CREDPROV_FAKE_ARGV0=$0',
    // Node's compile cache: the fake starts ~3x faster on every image pull.
    'NODE_COMPILE_CACHE=${NODE_COMPILE_CACHE:-${TMPDIR:-/tmp}/credprov-node-compile-cache}',
    'export CREDPROV_FAKE_ARGV0 NODE_COMPILE_CACHE',
    `exec ${q(o.node ?? process.execPath)} ${q(FAKE_PROVIDER_MAIN)} "$@"`,
    '',
  ].join('\n');
  return writeScript(path, script);
}

/** One line of the fake provider's JSONL request log (fixtures/fake-credential-provider/main.ts). */
export interface FakeRecord {
  /** When the answer was written (after any scripted delay). */
  time: string;
  pid: number;
  /** argv[0] is the path the kubelet exec'd: <bin-dir>/<provider name>. */
  argv: string[];
  image?: string;
  request: {
    apiVersion?: string;
    kind?: string;
    image?: string;
    serviceAccountToken?: string;
    serviceAccountAnnotations?: Record<string, string>;
    raw?: string;
  };
  tokenPresent: boolean;
  tokenSha256?: string;
  tokenAud?: string[];
  tokenSub?: string;
  /** The pod the token is bound to (its kubernetes.io.pod.name claim). */
  tokenPod?: string;
  annotations: Record<string, string>;
  decidedBy: string;
  response: { exitCode: number; stdout: string; stderr: string };
  durationMs: number;
}

/** A fake invocation with the provider that was exec'd (the basename of argv[0]). */
export interface FakeInvocation extends FakeRecord {
  provider: string;
}

export async function readFakeInvocations(file: string): Promise<FakeInvocation[]> {
  return (await readInvocationLog<FakeRecord>(file)).map((r) => ({ ...r, provider: basename(r.argv[0] ?? '') }));
}
