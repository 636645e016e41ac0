// Host-wide names a local environment claims, derived from its name alone:
// link names, the nodes' addresses, their pod subnets, CNI networks and cgroup
// roots. `down` and the leftovers checker recompute them, so they find what an
// environment made even when it crashed before saving its state.
import { createHash } from 'node:crypto';

/** What one node of the environment claims on the host. */
export interface NodeIdentity {
  /** The node's CNI bridge (its pods' veths are enslaved to it). */
  cniBridge: string;
  nodeIP: string;
  podSubnet: string;
  /** The node's CNI network name: libcni's result cache files start with it. */
  cniNetwork: string;
  /** The cgroup every pod of the node lives under, in every hierarchy (no leading slash). */
  cgroupRoot: string;
}

export interface HostIdentity extends NodeIdentity {
  /** An empty bridge carrying both nodes' addresses. */
  nodeLink: string;
  /** The second node (its own kubelet and containerd): names that can never be another environment's first node's. */
  second: NodeIdentity;
}

export function hostIdentity(envName: string): HostIdentity {
  const h = createHash('sha256').update(envName).digest();
  const hex = h.toString('hex').slice(0, 8);
  const podSubnet = `10.${200 + (h[0]! % 50)}.${h[1]!}.0/24`;
  let secondSubnet = `10.${200 + (h[4]! % 50)}.${h[5]!}.0/24`;
  if (secondSubnet === podSubnet) secondSubnet = `10.${200 + (h[4]! % 50)}.${(h[5]! + 1) % 256}.0/24`;
  const cgroupRoot = `credprov-${envName}`;
  const cniNetwork = `credprov-${envName}`.slice(0, 60);
  return {
    // Interface names are at most 15 bytes; the hash keeps two environments apart.
    cniBridge: `cp${hex}`,
    nodeLink: `cpn${hex}`,
    nodeIP: `172.29.${h[2]!}.${1 + (h[3]! % 250)}`,
    podSubnet,
    cniNetwork,
    cgroupRoot,
    second: {
      cniBridge: `cpb${hex}`,
      // Another /16 than the first nodes': never the address of another environment's first node.
      nodeIP: `172.30.${h[2]!}.${1 + (h[3]! % 250)}`,
      podSubnet: secondSubnet,
      // Environment names have no dots, so no environment's first network is named like this.
      cniNetwork: `${cniNetwork}.b`,
      // Inside the first node's root: one tree to find and remove, and apart from the first kubelet's kubepods.
      cgroupRoot: `${cgroupRoot}/node-b`,
    },
  };
}

/** Both nodes' identities, first node first. */
export function nodeIdentities(id: HostIdentity): NodeIdentity[] {
  return [id, id.second];
}
