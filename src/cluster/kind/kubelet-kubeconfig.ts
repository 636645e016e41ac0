// A kubeconfig that authenticates as a kind node's kubelet: the cluster (server
// and CA) from the admin kubeconfig kind wrote, which this host reaches on its
// published port, and the kubelet's own client certificate and key from the
// node (kubelet-client-current.pem holds both).
import { parse, stringify } from 'yaml';
import { CredprovError } from '../../core/errors.ts';

interface Kubeconfig {
  clusters?: Array<{ name: string; cluster: Record<string, unknown> }>;
}

export function kubeletKubeconfigFor(adminKubeconfig: string, node: string, pem: string): string {
  const cluster = (parse(adminKubeconfig) as Kubeconfig).clusters?.[0];
  if (!cluster) throw new CredprovError('the admin kubeconfig names no cluster');
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/.exec(pem)?.[0];
  const key = /-----BEGIN (?:EC |RSA )?PRIVATE KEY-----[\s\S]+?-----END (?:EC |RSA )?PRIVATE KEY-----\n?/.exec(
    pem,
  )?.[0];
  if (!cert || !key) throw new CredprovError(`node ${node}'s kubelet-client-current.pem lacks a certificate or a key`);
  const user = `system:node:${node}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster.name, cluster: cluster.cluster }],
    users: [
      {
        name: user,
        user: {
          'client-certificate-data': Buffer.from(cert).toString('base64'),
          'client-key-data': Buffer.from(key).toString('base64'),
        },
      },
    ],
    contexts: [{ name: user, context: { cluster: cluster.name, user } }],
    'current-context': user,
  });
}
