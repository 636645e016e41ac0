// The runs a certification makes, as named steps. Each produces invocations;
// the checks (evaluate.ts) only read them, so a check never runs the plugin
// itself and the report's evidence is exactly what was observed.
import { V1, V1BETA1 } from '../../api/exec/types.ts';
import { CredprovError } from '../../core/errors.ts';
import type { Redactor } from '../../core/redact.ts';
import { silentProgress, step, type Progress } from '../../core/progress.ts';
import type { InvocationLog } from '../../plugin/invocation.ts';
import {
  runExecPlugin,
  type ExecInvocation,
  type ExecPlugin,
  type RunExecOptions,
  type StdinPlan,
} from '../../plugin/client-exec.ts';

/** How the harness provokes a failure without knowing the plugin: inputs no plugin can honour. */
export const PROVOCATIONS: Array<{ name: string; describe: string; rawExecInfo: string }> = [
  {
    name: 'unsupported-version',
    describe: 'KUBERNETES_EXEC_INFO asks for client.authentication.k8s.io/v0, a version no plugin speaks',
    rawExecInfo: JSON.stringify({
      kind: 'ExecCredential',
      apiVersion: 'client.authentication.k8s.io/v0',
      spec: { interactive: false },
    }),
  },
  {
    name: 'malformed-exec-info',
    describe: 'KUBERNETES_EXEC_INFO is not JSON',
    rawExecInfo: '{"kind":"ExecCredential","apiVersion":',
  },
];

export interface Observations {
  plugin: ExecPlugin;
  timeoutMs: number;
  /** The first run as a client would make it. */
  main: ExecInvocation;
  /** Absent when the first run timed out (running again would only wait again). */
  repeat?: ExecInvocation;
  concurrent: ExecInvocation[];
  /** spec.interactive=false with an open, silent stdin. Absent for interactiveMode Always. */
  nonInteractiveProbe?: ExecInvocation;
  /** One run per supported version, configured with that version. */
  byVersion: Array<{ apiVersion: string; inv: ExecInvocation }>;
  provoked: Array<{ name: string; describe: string; inv: ExecInvocation }>;
  /** Made when client-node is among the clients: no KUBERNETES_EXEC_INFO and an open, silent stdin, as it runs plugins. */
  asClientNode?: ExecInvocation;
  concurrency: number;
}

export interface RunPlanOptions {
  log: InvocationLog;
  timeoutMs: number;
  redactor?: Redactor;
  parentEnv?: NodeJS.ProcessEnv;
  cwd?: string;
  concurrency?: number;
  progress?: Progress;
  /** Aborted on Ctrl-C: no further run starts (the caller kills the ones in flight). */
  signal?: AbortSignal;
  /** Also run the plugin as @kubernetes/client-node does (its client check predicts from that run). */
  asClientNode?: boolean;
}

/**
 * Certification never hands the harness's terminal to the plugin: CI has none,
 * and a vendor's plugin prompting a person would make the run unrepeatable.
 * Always-mode plugins get a scripted, empty stdin instead (client-go would refuse
 * to run them without a terminal).
 */
export function certificationStdin(plugin: ExecPlugin): StdinPlan {
  return plugin.config.interactiveMode === 'Always' ? { kind: 'input', data: '' } : { kind: 'none' };
}

export async function observe(plugin: ExecPlugin, o: RunPlanOptions): Promise<Observations> {
  const progress = o.progress ?? silentProgress;
  const concurrency = o.concurrency ?? 8;
  const base = (label: string, extra: Partial<RunExecOptions> = {}): RunExecOptions => ({
    log: o.log,
    timeoutMs: o.timeoutMs,
    stdin: certificationStdin(plugin),
    label,
    ...(o.redactor ? { redactor: o.redactor } : {}),
    ...(o.parentEnv ? { parentEnv: o.parentEnv } : {}),
    ...(o.cwd ? { cwd: o.cwd } : {}),
    ...extra,
  });
  const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    if (o.signal?.aborted)
      throw new CredprovError(`interrupted before the ${name}; no report written`, { exitCode: 130 });
    return step(progress, name, fn);
  };

  const main = await timed('first run', () => runExecPlugin(plugin, base('main')));
  const hung = main.timedOut;
  const repeat = hung ? undefined : await timed('second run', () => runExecPlugin(plugin, base('repeat')));
  const concurrent = hung
    ? []
    : await timed(`${concurrency} concurrent runs`, () =>
        Promise.all(Array.from({ length: concurrency }, () => runExecPlugin(plugin, base('concurrent')))),
      );
  const nonInteractiveProbe =
    hung || plugin.config.interactiveMode === 'Always'
      ? undefined
      : await timed('non-interactive run with an open stdin', () =>
          runExecPlugin(plugin, base('stdin-probe', { stdin: { kind: 'silent-pipe' } })),
        );

  const byVersion: Observations['byVersion'] = [];
  if (!hung) {
    for (const apiVersion of [V1, V1BETA1]) {
      const inv =
        apiVersion === plugin.config.apiVersion
          ? main
          : await timed(`run configured with ${apiVersion}`, () =>
              runExecPlugin(plugin, base(`version-${apiVersion.split('/')[1]}`, { apiVersion })),
            );
      byVersion.push({ apiVersion, inv });
    }
  }
  const provoked: Observations['provoked'] = [];
  if (!hung) {
    for (const p of PROVOCATIONS) {
      const inv = await timed(`provoked failure: ${p.name}`, () =>
        runExecPlugin(plugin, base(`provoke-${p.name}`, { rawExecInfo: p.rawExecInfo })),
      );
      provoked.push({ name: p.name, describe: p.describe, inv });
    }
  }
  // client-node runs the plugin without KUBERNETES_EXEC_INFO and with an open, silent stdin: its answer can differ.
  const asClientNode =
    o.asClientNode && !hung
      ? await timed('run as @kubernetes/client-node runs it (no KUBERNETES_EXEC_INFO)', () =>
          runExecPlugin(plugin, base('as-client-node', { stdin: { kind: 'silent-pipe' }, omitExecInfo: true })),
        )
      : undefined;
  return {
    plugin,
    timeoutMs: o.timeoutMs,
    ...(asClientNode ? { asClientNode } : {}),
    main,
    ...(repeat ? { repeat } : {}),
    concurrent,
    ...(nonInteractiveProbe ? { nonInteractiveProbe } : {}),
    byVersion,
    provoked,
    concurrency,
  };
}
