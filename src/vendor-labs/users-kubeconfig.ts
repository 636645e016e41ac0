// The kubeconfig a vendor lab hands kubectl and the other clients: one
// cluster, and one user and context per entry, each user an exec stanza (the
// plugin, usually behind a recording wrapper) or a static token (one the
// plugin cannot make). Mode 0600: a token user is a credential.
import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';

export interface UsersKubeconfigCluster {
  server: string;
  caFile?: string;
  /** base64 of the CA's PEM, as certificate-authority-data holds it. */
  caData?: string;
}

export type UsersKubeconfigUser = { exec: Record<string, unknown> } | { token: string };

/** Writes `file`; the current context is `current`, else the first user. */
export async function writeUsersKubeconfig(
  file: string,
  cluster: UsersKubeconfigCluster,
  users: Record<string, UsersKubeconfigUser>,
  current?: string,
): Promise<string> {
  const names = Object.keys(users);
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'credprov',
        cluster: {
          server: cluster.server,
          ...(cluster.caFile ? { 'certificate-authority': cluster.caFile } : {}),
          ...(cluster.caData ? { 'certificate-authority-data': cluster.caData } : {}),
        },
      },
    ],
    users: names.map((name) => ({ name, user: users[name] })),
    contexts: names.map((name) => ({ name, context: { cluster: 'credprov', user: name } })),
    'current-context': current ?? names[0],
  };
  await writeFile(file, stringify(doc), { mode: 0o600 });
  return file;
}
