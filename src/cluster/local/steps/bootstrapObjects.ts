// Every pod's projected token volume needs the namespace's `default`
// ServiceAccount and kube-root-ca.crt ConfigMap. The controller-manager makes
// both, but only after the namespace exists: a pod created at once would race
// it, so the harness creates them itself for each namespace it uses.
import { readFile } from 'node:fs/promises';
import { kubeApi, type ApiTarget } from '../../api.ts';
import type { Step } from '../context.ts';

export async function prepareNamespace(t: ApiTarget, caCertFile: string, namespace: string): Promise<void> {
  const ca = await readFile(caCertFile, 'utf8');
  await (
    await kubeApi(t)
  ).apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace }, data: { 'ca.crt': ca } },
  ]);
}

export const bootstrapObjects: Step = {
  name: 'default service account and root CA',
  async run(ctx) {
    await prepareNamespace({ kubeconfig: ctx.layout.adminKubeconfig }, ctx.pki.caCert, 'default');
  },
};
