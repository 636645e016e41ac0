// Host-wide names a local environment claims, derived from its name alone:
// link names, the node address, the pod subnet, the CNI network and the cgroup
// root. `down` and the leftovers checker recompute them, so they find what an
// environment made even when it crashed before saving its state.
import { createHash } from 'node:crypto';

export interface HostIdentity {
  /** The CNI bridge (pods' veths are enslaved to it). */
  cniBridge: string;
  /** An empty bridge carrying the node's address. */
  nodeLink: string;
  nodeIP: string;
  podSubnet: string;
  /** The CNI network name: libcni's result cache files start with it. */
  cniNetwork: string;
  /** The cgroup every pod of the environment lives under, in every hierarchy. */
  cgroupRoot: string;
}

export function hostIdentity(envName: string): HostIdentity {
  const h = createHash('sha256').update(envName).digest();
  const hex = h.toString('hex').slice(0, 8);
  return {
    // Interface names are at most 15 bytes; the hash keeps two environments apart.
    cniBridge: `cp${hex}`,
    nodeLink: `cpn${hex}`,
    nodeIP: `172.29.${h[2]!}.${1 + (h[3]! % 250)}`,
    podSubnet: `10.${200 + (h[0]! % 50)}.${h[1]!}.0/24`,
    cniNetwork: `credprov-${envName}`.slice(0, 60),
    cgroupRoot: `credprov-${envName}`,
  };
}
