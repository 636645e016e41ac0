// IV-EVENTS-ON-POD's observation: where a failed image volume pull shows. The
// pod's events through the environment's kubectl (involvedObject.fieldPath is
// what tells a pod-level event from a container's), polled until the
// container's Error event is there or 20 s have passed.
import { execa } from 'execa';
import { poll, type Environment } from '../../src/run/kit.ts';
import type { VolumeEvents } from './predict.ts';

interface KubeEvent {
  reason?: string;
  message?: string;
  involvedObject?: { name?: string; fieldPath?: string };
}

export async function volumeEvents(
  env: Pick<Environment, 'kubectl' | 'kubeconfig'>,
  namespace: string,
  pod: string,
  volumeRef: string,
): Promise<{ seen: VolumeEvents; events: KubeEvent[] }> {
  let events: KubeEvent[] = [];
  const read = async () => {
    const r = await execa(env.kubectl, [
      '--kubeconfig',
      env.kubeconfig,
      '-n',
      namespace,
      'get',
      'events',
      '--field-selector',
      `involvedObject.name=${pod}`,
      '-o',
      'json',
    ]);
    events = (JSON.parse(r.stdout) as { items: KubeEvent[] }).items;
    return events.some(
      (e) => e.involvedObject?.fieldPath === 'spec.containers{main}' && e.message?.startsWith('Error:'),
    )
      ? true
      : undefined;
  };
  await poll(read, { timeoutMs: 20_000 });
  const pulls = events.filter((e) => e.message?.includes(volumeRef));
  const container = events.find(
    (e) => e.involvedObject?.fieldPath === 'spec.containers{main}' && e.message?.startsWith('Error:'),
  );
  return {
    seen: {
      pullEventsOn:
        pulls.length === 0 ? 'nowhere' : pulls.every((e) => !e.involvedObject?.fieldPath) ? 'pod' : 'a container',
      container: container ? `${container.reason}: ${container.message}` : 'none',
    },
    events: events.map((e) => ({ reason: e.reason, message: e.message, involvedObject: e.involvedObject })),
  };
}
