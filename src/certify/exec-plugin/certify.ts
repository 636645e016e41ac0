// Certifies a client-go exec credential plugin: run it the ways clients do
// (observe), judge every requirement from those runs (evaluate), optionally
// run it through real clients (the client matrix), and return results plus
// informational timings. Writing reports is finishRun's job.
import type { CheckResult } from '../../report/model.ts';
import type { ExecInvocation, ExecPlugin } from '../../plugin/client-exec.ts';
import { latencyOf } from '../../report/statistics.ts';
import { certifyThroughClients, WITHOUT_EXEC_INFO, type MatrixClient } from './clients.ts';
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
  const obs = await observe(plugin, {
    ...o,
    asClientNode: o.clients?.some((c) => WITHOUT_EXEC_INFO.includes(c.probe.name)),
  });
  const checks = await evaluate(obs);
  const matrix = o.clients?.length ? await certifyThroughClients(plugin, obs, { ...o, clients: o.clients }) : undefined;
  // Latency is of runs that ended by themselves: a timeout or a refused start says nothing of speed.
  const ended = (runs: ExecInvocation[]) => runs.filter((i) => !i.timedOut && !i.spawnError).map((i) => i.durationMs);
  return {
    checks: [...checks, ...(matrix?.checks ?? [])],
    metrics: {
      invocations: o.log.records.length,
      latencyMs: latencyOf(ended(o.log.records as ExecInvocation[])),
      // The samples latencyMs is computed on: report.html draws the histogram from these.
      durationsMs: ended(o.log.records as ExecInvocation[]),
      firstRunMs: obs.main.durationMs,
      ...(obs.repeat ? { secondRunMs: obs.repeat.durationMs } : {}),
      ...(obs.concurrent.length
        ? { concurrentLatencyMs: latencyOf(ended(obs.concurrent)), concurrency: obs.concurrency }
        : {}),
      ...(matrix ? { clientMs: matrix.timingsMs } : {}),
    },
  };
}
