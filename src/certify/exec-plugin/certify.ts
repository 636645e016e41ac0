// Certifies a client-go exec credential plugin: run it the ways clients do
// (observe), judge every requirement from those runs (evaluate), optionally
// run it through real clients (the client matrix), and return results plus
// informational timings. Writing reports is finishRun's job.
import type { CheckResult } from '../../report/model.ts';
import type { ExecPlugin } from '../../plugin/client-exec.ts';
import { certifyThroughClients, type MatrixClient } from './clients.ts';
import { evaluate } from './evaluate.ts';
import { observe, type RunPlanOptions } from './runs.ts';

export interface CertifyExecOptions extends RunPlanOptions {
  /** Real clients to run the plugin through (certify exec-plugin --clients); none by default. */
  clients?: MatrixClient[];
}

export interface ExecCertification {
  checks: CheckResult[];
  metrics: Record<string, unknown>;
}

export async function certifyExecPlugin(plugin: ExecPlugin, o: CertifyExecOptions): Promise<ExecCertification> {
  const obs = await observe(plugin, { ...o, asClientNode: o.clients?.some((c) => c.probe.name === 'client-node') });
  const checks = await evaluate(obs);
  const matrix = o.clients?.length ? await certifyThroughClients(plugin, obs, { ...o, clients: o.clients }) : undefined;
  const concurrent = obs.concurrent.map((i) => i.durationMs).sort((a, b) => a - b);
  const pct = (p: number) =>
    concurrent.length ? concurrent[Math.min(concurrent.length - 1, Math.floor(p * concurrent.length))] : undefined;
  return {
    checks: [...checks, ...(matrix?.checks ?? [])],
    metrics: {
      invocations: o.log.records.length,
      durationsMs: o.log.records.map((i) => i.durationMs),
      firstRunMs: obs.main.durationMs,
      ...(obs.repeat ? { secondRunMs: obs.repeat.durationMs } : {}),
      ...(concurrent.length
        ? {
            concurrentRuns: concurrent.length,
            concurrentP50Ms: pct(0.5),
            concurrentMaxMs: concurrent[concurrent.length - 1],
          }
        : {}),
      ...(matrix ? { clientMs: matrix.timingsMs } : {}),
    },
  };
}
