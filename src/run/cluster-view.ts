// The cluster as a client outside it sees it: the API server's URL and the CA
// that signed its certificate, read from the environment's admin kubeconfig
// (a file path or inline data, as the provider wrote it). A suite writes its
// own kubeconfigs (users of a plugin under test, a client probe's) from this.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { CredprovError } from '../core/errors.ts';
import type { Environment } from '../cluster/provider.ts';

export interface ClusterView {
  /** The API server's URL. */
  server: string;
  /** The CA that signed the API server's certificate, PEM. */
  caPem: string;
  /** The same CA, base64: a kubeconfig's certificate-authority-data. */
  caData: string;
}

interface KubeconfigCluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
}

/** The first cluster of the environment's kubeconfig (credprov's environments have one). */
export async function clusterOf(env: Pick<Environment, 'kubeconfig'>): Promise<ClusterView> {
  const kc = parse(await readFile(env.kubeconfig, 'utf8')) as { clusters?: Array<{ cluster?: KubeconfigCluster }> };
  const c = kc?.clusters?.[0]?.cluster;
  if (!c?.server)
    throw new CredprovError(`${env.kubeconfig}: clusters[0].cluster.server is missing; expected an API server URL`);
  const caPem = c['certificate-authority-data']
    ? Buffer.from(c['certificate-authority-data'], 'base64').toString('utf8')
    : c['certificate-authority']
      ? await readFile(c['certificate-authority'], 'utf8')
      : '';
  if (!caPem)
    throw new CredprovError(
      `${env.kubeconfig}: clusters[0].cluster names no CA; expected certificate-authority or certificate-authority-data`,
    );
  return { server: c.server, caPem, caData: Buffer.from(caPem).toString('base64') };
}
