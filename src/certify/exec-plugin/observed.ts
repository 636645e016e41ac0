// What the certification's runs of an exec plugin hold, as the checks read
// them: the answer of a run as client-go decodes it (or as found among
// noise), its status, why a run gave nothing, and the runs by kind.
import { findEmbeddedJsonObject, parseStdoutLikeClientGo } from '../../api/exec/credential.ts';
import { formatMs } from '../../core/duration.ts';
import type { ExecInvocation } from '../../plugin/client-exec.ts';
import { describeEnd } from '../../plugin/go-exec.ts';
import { clipOutputs, cutResponse } from '../../plugin/invocation.ts';
import type { Evidence } from '../../report/model.ts';
import type { Observations } from './runs.ts';

export type Obj = Record<string, unknown>;

export const evidence = (label: string, inv: ExecInvocation): Evidence => ({
  kind: 'invocation',
  label: `${label} (${inv.id})`,
  data: clipOutputs(inv),
});

/** The object a run printed as client-go reads it, or found inside noise (EP-STDOUT-ONLY-JSON judges the form). */
export function answer(inv: ExecInvocation): Obj | undefined {
  if (inv.exitCode !== 0 || inv.timedOut || cutResponse(inv)) return undefined;
  const asClientGo = parseStdoutLikeClientGo(inv.stdout);
  if (asClientGo.ok) return asClientGo.value;
  return findEmbeddedJsonObject(inv.stdout)?.value;
}

export function status(inv: ExecInvocation): Obj | undefined {
  const s = answer(inv)?.status;
  return s && typeof s === 'object' && !Array.isArray(s) ? (s as Obj) : undefined;
}

export const str = (o: Obj | undefined, k: string): string => (o && typeof o[k] === 'string' ? (o[k] as string) : '');

/** Why a run produced nothing to judge, in one line. */
export function whyNoAnswer(inv: ExecInvocation): string {
  if (inv.timedOut) return `it did not answer within ${formatMs(inv.durationMs)}`;
  if (inv.spawnError) return inv.spawnError.split('\n')[0]!;
  if (inv.exitCode !== 0) {
    const err = inv.stderr.trim().split('\n').pop();
    return `it ${describeEnd(inv)}${err ? ` (stderr: ${clip(err, 160)})` : ' with nothing on stderr'}`;
  }
  const cut = cutResponse(inv);
  if (cut) return `its ${cut}`;
  if (inv.stdout.trim() === '') return 'it exited 0 with an empty stdout';
  return 'its stdout holds no JSON object';
}

export function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}…`;
}

export type Labelled = Array<[string, ExecInvocation]>;

/** Runs that used the configured apiVersion and the client-go stdin handling. */
export function configuredRuns(o: Observations): Labelled {
  const runs: Labelled = [['first run', o.main]];
  if (o.repeat) runs.push(['second run', o.repeat]);
  o.concurrent.forEach((inv, i) => runs.push([`concurrent run ${i + 1}/${o.concurrent.length}`, inv]));
  return runs;
}

/** Every run the certification made, each once. */
export function everyRun(o: Observations): Labelled {
  const runs = configuredRuns(o);
  if (o.nonInteractiveProbe) runs.push(['non-interactive run with an open stdin', o.nonInteractiveProbe]);
  for (const { apiVersion, inv } of o.byVersion)
    if (inv !== o.main) runs.push([`run configured with ${apiVersion}`, inv]);
  for (const p of o.provoked) runs.push([`provoked failure (${p.name})`, p.inv]);
  if (o.asClientNode) runs.push(['run as client-node runs it (no KUBERNETES_EXEC_INFO)', o.asClientNode]);
  return runs;
}
