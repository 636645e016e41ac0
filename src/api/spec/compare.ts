// Whether a running environment can serve a wanted spec: as is, after a
// kubelet restart (only kubelet-side fields differ), or not at all.
import type { EnvironmentSpec } from './types.ts';

export type SpecDelta = 'same' | 'kubelet' | 'different';

export function compareSpecs(running: EnvironmentSpec, wanted: EnvironmentSpec): SpecDelta {
  // A wanted spec that says nothing of the kind cluster's shape takes the running one's (`run` after `up --workers 1`).
  const shape = wanted.kindCluster ?? running.kindCluster ?? null;
  const controlPlane = (s: EnvironmentSpec) => ({
    name: s.name,
    kubeVersion: s.kubeVersion,
    binDir: s.binDir ?? null,
    apiserverGates: sorted(s.featureGates.apiserver),
    apiserver: s.apiserver,
    existing: s.existing ?? null,
    kindCluster: s === wanted ? shape : (s.kindCluster ?? null),
  });
  const kubelet = (s: EnvironmentSpec) => ({
    kubelet: s.kubelet,
    kubeletGates: sorted(s.featureGates.kubelet),
    credentialProvider: s.credentialProvider ?? null,
  });
  const providerOk = wanted.provider === 'auto' || running.provider === 'auto' || wanted.provider === running.provider;
  if (!providerOk || canonical(controlPlane(running)) !== canonical(controlPlane(wanted))) return 'different';
  return canonical(kubelet(running)) === canonical(kubelet(wanted)) ? 'same' : 'kubelet';
}

function sorted(o: Record<string, boolean>): Array<[string, boolean]> {
  return Object.entries(o).sort(([a], [b]) => a.localeCompare(b));
}

/** JSON with object keys sorted, so key order never makes two equal specs differ. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b)))
      : x,
  );
}
