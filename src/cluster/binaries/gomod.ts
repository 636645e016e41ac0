// The wrapper module that lets `go build` compile k8s.io/kubernetes commands
// from the Go module proxy. k/k's own go.mod points every staging module at
// ./staging/src/…, and replace directives of a dependency are ignored, so the
// wrapper must repeat them with the published staging version (v0.Y.Z for
// v1.Y.Z). The staging list changes between releases, so it is read from the
// k/k go.mod of the exact tag, never hardcoded.
import { ConfigError } from '../../core/errors.ts';

export const KUBE_MODULE = 'k8s.io/kubernetes';

export interface KubeGoMod {
  /** The `go` line (1.26.0). */
  go: string;
  /** Every `godebug` setting, in file order (default=go1.26). */
  godebug: string[];
  /** Staging modules replaced with ./staging/src/… (k8s.io/api, …). */
  staging: string[];
  /** Other replace directives, copied verbatim (none in 1.35–1.37, but a tag may add one). */
  otherReplaces: string[];
  excludes: string[];
}

/** Parses the directives the wrapper needs from k/k's go.mod. */
export function parseKubeGoMod(text: string, file = 'k8s.io/kubernetes go.mod'): KubeGoMod {
  const out: KubeGoMod = { go: '', godebug: [], staging: [], otherReplaces: [], excludes: [] };
  let block: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (line === '') continue;
    if (block !== undefined) {
      if (line === ')') block = undefined;
      else directive(block, line, out);
      continue;
    }
    const opened = /^(\w+)\s*\($/.exec(line);
    if (opened) {
      block = opened[1]!;
      continue;
    }
    const m = /^(\w+)\s+(.*)$/.exec(line);
    if (m) directive(m[1]!, m[2]!, out);
  }
  if (!out.go) throw new ConfigError(`${file} has no 'go' directive`, { file });
  if (out.staging.length === 0) {
    throw new ConfigError(`${file} replaces no staging module with ./staging/src/…`, {
      file,
      hint: 'this does not look like the go.mod of a k8s.io/kubernetes release tag',
    });
  }
  return out;
}

function directive(verb: string, rest: string, out: KubeGoMod): void {
  switch (verb) {
    case 'go':
      out.go = rest;
      break;
    case 'godebug':
      out.godebug.push(rest);
      break;
    case 'exclude':
      out.excludes.push(rest);
      break;
    case 'replace': {
      const m = /^(\S+)(?:\s+\S+)?\s+=>\s+(\S+)/.exec(rest);
      if (m && m[2]!.startsWith('./staging/')) out.staging.push(m[1]!);
      else out.otherReplaces.push(rest);
      break;
    }
  }
}

/** v1.37.1 → v0.37.1, v1.38.0-alpha.0 → v0.38.0-alpha.0: staging modules are published with major 0 and the same rest. */
export function stagingVersion(kubeVersion: string): string {
  const m = /^v1\.(\d+\.\d+(?:-(?:alpha|beta|rc)\.\d+)?)$/.exec(kubeVersion);
  if (!m) throw new ConfigError(`'${kubeVersion}' is not an exact Kubernetes release (vX.Y.Z)`);
  return `v0.${m[1]}`;
}

export const WRAPPER_MODULE = 'credprov.local/kubebins';

/**
 * The wrapper go.mod: same go line and godebug settings as k/k (a dependency's godebug is ignored), every
 * staging module pinned to the release's staging version, or to `substitutes[module]` where given.
 */
export function wrapperGoMod(kube: KubeGoMod, kubeVersion: string, substitutes: Record<string, string> = {}): string {
  const sv = stagingVersion(kubeVersion);
  const lines = [
    `module ${WRAPPER_MODULE}`,
    '',
    `go ${kube.go}`,
    '',
    ...kube.godebug.map((g) => `godebug ${g}`),
    '',
    `require ${KUBE_MODULE} ${kubeVersion}`,
    '',
    'replace (',
    ...kube.staging.map((m) => `\t${m} => ${m} ${substitutes[m] ?? sv}`),
    ...kube.otherReplaces.map((r) => `\t${r}`),
    ')',
  ];
  if (kube.excludes.length > 0) lines.push('', 'exclude (', ...kube.excludes.map((e) => `\t${e}`), ')');
  return `${lines.join('\n')}\n`;
}

/** Blank imports keep `go mod tidy` from dropping the requirements of the commands we build. */
export function toolsGo(packages: string[]): string {
  return ['//go:build tools', '', 'package tools', '', 'import (', ...packages.map((p) => `\t_ "${p}"`), ')', ''].join(
    '\n',
  );
}
