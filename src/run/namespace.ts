// Namespaces as the upstream e2e framework gives them: made for a case (or a
// suite), ready once pods can start in it (its default ServiceAccount and the
// kube-root-ca.crt every pod's token volume mounts exist), deleted afterwards,
// and kept with its events as evidence when what ran in it failed.
import { randomBytes } from 'node:crypto';
import type { CoreV1Event } from '@kubernetes/client-node';
import { kubeApi, type ApiTarget } from '../cluster/api.ts';
import { waitFor } from '../core/time.ts';
import type { CheckResult, Evidence } from '../report/model.ts';
import type { SuiteRun } from './suite.ts';

export interface TestNamespace {
  name: string;
  /** Deletes it (not awaited to completion: the namespace controller takes its time), or, when `failed`, keeps it and returns its events as evidence. */
  finish(failed: boolean): Promise<Evidence[]>;
}

/** Kubernetes names: lower case, at most 63 characters; a random suffix keeps runs and cases apart. */
export function namespaceName(base: string): string {
  const stem =
    base
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 55) || 'credprov';
  return `${stem}-${randomBytes(3).toString('hex')}`;
}

export async function createNamespace(
  target: ApiTarget,
  name: string,
  o: { labels?: Record<string, string>; timeoutMs?: number } = {},
): Promise<TestNamespace> {
  const api = await kubeApi(target);
  await api.apply([
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'credprov', ...o.labels } },
    },
  ]);
  const ready = { timeoutMs: o.timeoutMs ?? 30_000, intervalMs: 100 };
  const exists = (read: Promise<unknown>) =>
    read.then(
      () => true,
      () => undefined,
    );
  await Promise.all([
    // Pods without serviceAccountName are refused until the controller has made "default".
    waitFor(
      `the default ServiceAccount of namespace ${name}`,
      () => exists(api.core.readNamespacedServiceAccount({ name: 'default', namespace: name })),
      ready,
    ),
    // A pod's projected token volume waits for it: without it a pod would start late, skewing a case's timing.
    waitFor(
      `kube-root-ca.crt in namespace ${name}`,
      () => exists(api.core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: name })),
      ready,
    ),
  ]);
  return {
    name,
    async finish(failed) {
      if (!failed) {
        await api.core.deleteNamespace({ name }).catch(() => {});
        return [];
      }
      const events = await api.core.listNamespacedEvent({ namespace: name }).then(
        (l) => l.items.map(eventLine),
        () => [] as string[],
      );
      return [
        {
          kind: 'event',
          label: `events of namespace ${name} (kept for inspection; it goes with the environment)`,
          data: events,
        },
      ];
    },
  };
}

export interface RunNamespace {
  name: string;
  /** The suite's results, returned as they are once they decide the namespace's fate: kept when one failed. */
  settle(results: CheckResult[]): CheckResult[];
}

/**
 * A namespace for a whole suite run (a story whose later pods need what the
 * first ones recorded), deleted after the suite; kept, with its events, when
 * a check failed or the run broke before settle().
 */
export async function runNamespace(run: Pick<SuiteRun, 'environment' | 'defer'>, name: string): Promise<RunNamespace> {
  const ns = await createNamespace(run.environment, name);
  let failed = true;
  run.defer(async () => void (await ns.finish(failed)));
  return {
    name: ns.name,
    settle(results) {
      failed = results.some((r) => r.status === 'failed');
      return results;
    },
  };
}

function eventLine(e: CoreV1Event): string {
  const obj = e.involvedObject;
  return `${e.type ?? ''} ${e.reason ?? ''} ${obj.kind ?? ''}/${obj.name ?? ''}: ${(e.message ?? '').replace(/\s+/g, ' ')}${e.count && e.count > 1 ? ` (×${e.count})` : ''}`;
}
