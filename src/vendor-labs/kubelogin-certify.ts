// The kubeconfig `credprov certify exec-plugin` judges kubelogin with: users
// that exec the kubelogin binary itself (`get-token`, the password grant,
// a token cache dir of the lab's) against the lab's issuer, in v1 (upstream's
// README form) and v1beta1. Certification contacts no cluster: the placeholder
// server only fills spec.cluster, as `certify exec-plugin --command` does.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { KubeloginLab } from './kubelogin-lab.ts';

export const KUBELOGIN_CERTIFY_USERS = { v1: 'kubelogin', v1beta1: 'kubelogin-v1beta1' } as const;

export async function writeKubeloginCertifyKubeconfig(lab: KubeloginLab, dir: string): Promise<string> {
  const users = (['v1', 'v1beta1'] as const).map((v) => {
    const { env: _none, ...exec } = lab.execFor({
      grant: 'password',
      user: 'alice',
      cacheDir: join(dir, `cache-${v}`),
      apiVersion: v,
      direct: true,
    });
    return { name: KUBELOGIN_CERTIFY_USERS[v], user: { exec } };
  });
  const file = join(dir, 'kubeconfig');
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'credprov', cluster: { server: 'https://kubernetes.credprov.test:6443' } }],
    users,
    contexts: users.map((u) => ({ name: u.name, context: { cluster: 'credprov', user: u.name } })),
    'current-context': users[0]!.name,
  };
  await writeFile(file, stringify(doc), { mode: 0o600 });
  return file;
}
