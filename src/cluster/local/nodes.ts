// The nodes of a local environment. The first runs the environment's kubelet
// settings (what suites restart it with); the second is a plain node of the
// control plane's version with its own kubelet identity (system:node:<name>),
// containerd (root, state, socket), cgroup root, ports and pod subnet, so
// checks between two kubelets (capability secondNode) have a real one to ask.
// The two never share a containerd or a cgroup tree, so neither kubelet sees,
// let alone garbage-collects, the other's containers.
import { join } from 'node:path';
import type { EnvironmentSpec } from '../../api/spec/types.ts';
import type { Pki } from './certs.ts';
import type { LocalNode, LocalState, SecondNodeState } from './context.ts';
import { hostIdentity } from './identity.ts';
import type { Layout } from './layout.ts';

/** The second node's name: the first's with `-b` (a node name is a DNS subdomain of up to 253 characters). */
export function secondNodeName(firstNode: string): string {
  return `${firstNode}-b`;
}

export function firstNode(state: LocalState, layout: Layout, pki: Pki): LocalNode {
  const id = hostIdentity(state.name);
  return {
    name: state.spec.kubelet.nodeName,
    daemons: { kubelet: 'kubelet', containerd: 'containerd' },
    files: layout,
    ports: { kubelet: state.ports.kubelet, kubeletHealthz: state.ports.kubeletHealthz },
    nodeIP: state.nodeIP,
    podSubnet: state.podSubnet,
    cniBridge: state.cniBridge,
    cniNetwork: id.cniNetwork,
    cgroupRoot: id.cgroupRoot,
    spec: state.spec,
    kubeletBinary: state.binaries.kubelet,
    cert: { cert: pki.kubeletCert, key: pki.kubeletKey },
  };
}

export function secondNode(state: LocalState, layout: Layout, pki: Pki): LocalNode | undefined {
  const b = state.secondNode;
  if (!b) return undefined;
  const id = hostIdentity(state.name).second;
  return {
    name: b.name,
    daemons: { kubelet: 'kubelet-b', containerd: 'containerd-b' },
    files: layout.second,
    ports: b.ports,
    nodeIP: b.nodeIP,
    podSubnet: b.podSubnet,
    cniBridge: b.cniBridge,
    cniNetwork: id.cniNetwork,
    cgroupRoot: id.cgroupRoot,
    spec: secondNodeSpec(state.spec, b),
    // The control plane's own kubelet, whatever version the first node was given.
    kubeletBinary: join(state.binaries.binDir, 'kubelet'),
    cert: { cert: pki.secondKubeletCert, key: pki.secondKubeletKey },
  };
}

export function nodesOf(state: LocalState, layout: Layout, pki: Pki): LocalNode[] {
  const second = secondNode(state, layout, pki);
  return [firstNode(state, layout, pki), ...(second ? [second] : [])];
}

/** The environment's spec with a plain kubelet: no provider, no fragments, flags or gates of the first node's. */
function secondNodeSpec(spec: EnvironmentSpec, b: SecondNodeState): EnvironmentSpec {
  const { credentialProvider: _cp, ...rest } = spec;
  return {
    ...rest,
    featureGates: { ...spec.featureGates, kubelet: {} },
    kubelet: { nodeName: b.name, config: {}, extraArgs: [] },
  };
}

/** Daemon names of every node of `state`, first node first. */
export function nodeDaemons(state: LocalState | undefined): Array<{ kubelet: string; containerd: string }> {
  return [
    { kubelet: 'kubelet', containerd: 'containerd' },
    ...(state?.secondNode ? [{ kubelet: 'kubelet-b', containerd: 'containerd-b' }] : []),
  ];
}
