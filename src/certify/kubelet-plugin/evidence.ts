// Turns an invocation into report evidence: enough for a vendor to rerun it by
// hand (argv, env keys, the request), and what came back (exit, stdout/stderr
// excerpts). Secrets are redacted later, once, by the report writer.
import { basename } from 'node:path';
import type { Evidence } from '../../report/model.ts';
import { describeEnd } from '../../plugin/go-exec.ts';
import type { Invocation } from '../../plugin/invocation.ts';
import { formatRefusalHint } from '../kit.ts';

const EXCERPT = 2000;

export function invocationEvidence(inv: Invocation, label = inv.id): Evidence {
  const clip = (s: string) => (s.length > EXCERPT ? `${s.slice(0, EXCERPT)}… (${s.length} bytes)` : s);
  return {
    kind: 'invocation',
    label,
    data: {
      id: inv.id,
      argv: inv.argv,
      envKeys: inv.envKeys,
      ...(inv.inheritedEnv !== undefined ? { inheritedEnv: inv.inheritedEnv } : {}),
      request: inv.request,
      durationMs: inv.durationMs,
      ...(inv.spawnError ? { spawnError: inv.spawnError } : {}),
      ...(inv.exitCode !== undefined ? { exitCode: inv.exitCode } : {}),
      ...(inv.signal ? { signal: inv.signal } : {}),
      timedOut: inv.timedOut,
      stdout: clip(inv.stdout),
      stderr: clip(inv.stderr),
      ...(inv.decodeError ? { kubeletDecodeError: inv.decodeError } : {}),
      ...(inv.outputBytes ? { outputBytes: inv.outputBytes } : {}),
      ...(inv.strays ? { strays: inv.strays } : {}),
    },
  };
}

/** How an invocation ended, in a few words: "exited 1: <stderr line>", "was killed by signal: segmentation fault with nothing on stderr", "was killed after 60s …". */
export function ending(inv: Invocation, timeoutMs: number): string {
  if (inv.spawnError) {
    const why = formatRefusalHint(inv, 'the kubelet');
    const hint = why ? ` (${why})` : '';
    return `could not be started: "${kubeletExecError(inv, inv.spawnError)}"${hint}`;
  }
  if (inv.timedOut) return `was killed after ${seconds(timeoutMs)} without answering`;
  const line = inv.stderr
    .trim()
    .split('\n')
    .find((l) => l.trim() !== '');
  return `${describeEnd(inv)}${line ? `: ${line.length > 160 ? `${line.slice(0, 160)}…` : line}` : ' with nothing on stderr'}`;
}

export function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)}s` : `${ms}ms`;
}

export function requestedImage(inv: Invocation): string {
  const r = inv.request as { image?: unknown } | string;
  return typeof r === 'object' && r && typeof r.image === 'string' ? r.image : '(malformed request)';
}

/** The kubelet's error when running the plugin failed (runPlugin in pkg/credentialprovider/plugin/plugin.go): `cause` is Go's. */
export function kubeletExecError(inv: Invocation, cause: string): string {
  return `error execing credential provider plugin ${basename(inv.argv[0] ?? '')} for image ${requestedImage(inv)}: ${cause}`;
}
