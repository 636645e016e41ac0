// The client probes credprov knows, by name: the one place that maps a
// ClientName to its probe, and says which of them this machine can run.
import { clientGoProbe } from './client-go.ts';
import { clientNodeProbe } from './client-node.ts';
import type { ProbeOptions } from './common.ts';
import { kubectlProbe } from './kubectl.ts';
import { CLIENT_NAMES, type ClientAvailability, type ClientName, type ClientProbe } from './probe.ts';
import { pythonProbe } from './python.ts';

export type { ProbeOptions } from './common.ts';
export * from './probe.ts';

const FACTORIES: Record<ClientName, (o: ProbeOptions) => ClientProbe> = {
  kubectl: kubectlProbe,
  'client-go': clientGoProbe,
  'client-node': clientNodeProbe,
  python: pythonProbe,
};

export function isClientName(s: string): s is ClientName {
  return (CLIENT_NAMES as readonly string[]).includes(s);
}

export function probeFor(name: ClientName, o: ProbeOptions = {}): ClientProbe {
  return FACTORIES[name](o);
}

export interface ProbeAvailability {
  probe: ClientProbe;
  availability: ClientAvailability;
}

/** Every client credprov knows, in report order, with whether this machine can run it (and why not). */
export async function availableProbes(
  o: ProbeOptions = {},
  names: readonly ClientName[] = CLIENT_NAMES,
): Promise<ProbeAvailability[]> {
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
