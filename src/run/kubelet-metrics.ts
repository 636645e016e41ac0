// The kubelet's own /metrics, read through the API server's node proxy (so
// on every provider), as samples keyed the way they are written.
import { kubeApi } from '../cluster/api.ts';
import type { Environment } from '../cluster/provider.ts';

export type Metrics = Map<string, number>;

/** The kubelet's /metrics through the API server's node proxy. */
export async function scrapeMetrics(env: Environment): Promise<Metrics> {
  const text = await (
    await kubeApi(env)
  ).raw(`/api/v1/nodes/${encodeURIComponent(env.nodeName)}/proxy/metrics`, 30_000);
  return parseMetrics(text);
}

/** Prometheus text format, samples keyed as written (`name{a="b"}`), labels sorted. */
export function parseMetrics(text: string): Metrics {
  const out: Metrics = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = m[2]
      ? [...m[2].slice(1, -1).matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)]
          .map((x) => `${x[1]}="${x[2]}"`)
          .sort()
          .join(',')
      : '';
    out.set(labels ? `${m[1]}{${labels}}` : m[1]!, Number(m[3]));
  }
  return out;
}
