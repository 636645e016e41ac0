// The client probes credprov knows, by name: the one place that maps a
// ClientName to its probe, and says which of them this machine can run.
import { clientGoProbe } from './client-go.ts';
import { clientNodeProbe } from './client-node.ts';
import type { ProbeOptions } from './common.ts';
import { kubectlProbe } from './kubectl.ts';
import { fieldProbeFor } from './field-clients.ts';
import {
  CLIENT_NAMES,
  EXEC_CLIENT_NAMES,
  type ClientAvailability,
  type ClientName,
  type ClientProbe,
  type ExecClientName,
} from './probe.ts';
import { pythonProbe } from './python.ts';

export type { ProbeOptions } from './common.ts';
export * from './probe.ts';

const FACTORIES: Record<ExecClientName, (o: ProbeOptions) => ClientProbe> = {
  kubectl: kubectlProbe,
  'client-go': clientGoProbe,
  'client-node': clientNodeProbe,
  python: pythonProbe,
  fabric8: (o) => fieldProbeFor('fabric8', o),
  'kube-rs': (o) => fieldProbeFor('kube-rs', o),
  'kubernetes-asyncio': (o) => fieldProbeFor('kubernetes-asyncio', o),
};

export function isClientName(s: string): s is ClientName {
  return (CLIENT_NAMES as readonly string[]).includes(s);
}

export function isExecClientName(s: string): s is ExecClientName {
  return (EXEC_CLIENT_NAMES as readonly string[]).includes(s);
}

export function probeFor<N extends ExecClientName>(name: N, o: ProbeOptions = {}): ClientProbe<N> {
  return FACTORIES[name](o) as ClientProbe<N>;
}

export interface ProbeAvailability<N extends ExecClientName = ExecClientName> {
  probe: ClientProbe<N>;
  availability: ClientAvailability;
}

/** The clients `names` lists (default the four), in report order, with whether this machine can run each (and why not). */
export async function availableProbes<N extends ExecClientName = ClientName>(
  o: ProbeOptions = {},
  names: readonly N[] = CLIENT_NAMES as readonly N[],
): Promise<ProbeAvailability<N>[]> {
  return Promise.all(
    names.map(async (name) => {
      const probe = probeFor(name, o);
      try {
        return { probe, availability: await probe.available() };
      } catch (e) {
        return {
          probe,
          availability: { ok: false as const, reason: `cannot tell whether ${name} can run: ${(e as Error).message}` },
        };
      }
    }),
  );
}
