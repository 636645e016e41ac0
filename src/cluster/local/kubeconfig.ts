// kubeconfig files for the local cluster: admin (system:masters) for the
// harness and kubectl, the kubelet's own (system:node:<name>), and those of
// kube-controller-manager and kube-scheduler.
import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';

export async function writeKubeconfig(
  file: string,
  o: { server: string; caFile: string; certFile: string; keyFile: string; user: string },
): Promise<void> {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'credprov', cluster: { server: o.server, 'certificate-authority': o.caFile } }],
    users: [{ name: o.user, user: { 'client-certificate': o.certFile, 'client-key': o.keyFile } }],
    contexts: [{ name: 'credprov', context: { cluster: 'credprov', user: o.user } }],
    'current-context': 'credprov',
  };
  await writeFile(file, stringify(doc), { mode: 0o600 });
}
