// The kubelet's own log on this host (capability kubeletFiles): the lines
// about a pod or a plugin, and the error a structured (klog) line carries.
import { readFile } from 'node:fs/promises';
import type { Environment } from '../cluster/provider.ts';
import { kubeletFilesOf } from './environment-fields.ts';

/** Kubelet log lines that contain every one of `needles` (the suite's namespace makes them this run's); needs capability kubeletFiles. */
export async function kubeletLogLines(env: Environment, needles: string[], max = 6): Promise<string[]> {
  const text = await readFile(kubeletFilesOf(env).log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => needles.every((n) => l.includes(n)))
    .slice(-max);
}

/** The error text of a kubelet structured log line (err="…"), unescaped. */
export function klogErr(line: string): string | undefined {
  const m = /\berr="((?:[^"\\]|\\.)*)"/.exec(line);
  return m ? m[1]!.replace(/\\"/g, '"').replace(/\\\\/g, '\\') : undefined;
}
