// The probes of the three field clients (field-client.ts), by name.
import type { ProbeOptions } from './common.ts';
import { fabric8Probe } from './fabric8/fabric8.ts';
import type { FieldClientName, FieldClientProbe } from './field-client.ts';
import { kubeRsProbe } from './kube-rs/kube-rs.ts';
import { kubernetesAsyncioProbe } from './kubernetes-asyncio/kubernetes-asyncio.ts';

export * from './field-client.ts';

export function fieldProbeFor(name: FieldClientName, o: ProbeOptions = {}): FieldClientProbe {
  switch (name) {
    case 'fabric8':
      return fabric8Probe(o);
    case 'kube-rs':
      return kubeRsProbe(o);
    case 'kubernetes-asyncio':
      return kubernetesAsyncioProbe(o);
  }
}
