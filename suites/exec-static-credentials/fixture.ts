// What every exec-static-credentials case reads from: one namespace with a
// ServiceAccount per credential (plugin, static token, token file, --token),
// each allowed to get only its own ConfigMap, a token for each (known to the
// redactor), a basic-auth login the API server does not know, and a private
// dir with the fake plugin. Made once per run; removed after it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyObjects,
  bearerRequest,
  clusterOf,
  runNamespace,
  serviceAccount,
  serviceAccountToken,
  waitFor,
  type ClusterView,
  type SuiteRun,
  tokenFilePluginProgram,
} from '../../src/run/kit.ts';
import { configMapOf, IDENTITIES, PLUGIN, type Identity, type RowCredentials } from './plan.ts';

export interface Fixture extends RowCredentials {
  namespace: string;
  cluster: ClusterView;
  root: string;
  /** The fake plugin: logs each run to `<root>/ran.log`-like files it is given, answers the plugin identity's token. */
  plugin: string;
  pluginTokenFile: string;
  /** The token file again, ending in a newline (as `echo $TOKEN > file` writes it). */
  tokenFileNewline: string;
}

const NAMES = Object.keys(IDENTITIES) as Identity[];

export async function makeFixture(run: SuiteRun, id: string): Promise<Fixture> {
  const env = run.environment;
  const ns = await runNamespace(run, `credprov-xsc-${id}`);
  const namespace = ns.name;
  await applyObjects(
    env,
    NAMES.flatMap((n) => {
      const sa = IDENTITIES[n];
      const meta = { name: sa, namespace };
      return [
        serviceAccount(namespace, sa),
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: configMapOf(n), namespace }, data: { who: sa } },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: meta,
          rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [configMapOf(n)], verbs: ['get'] }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: meta,
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: sa },
          subjects: [{ kind: 'ServiceAccount', name: sa, namespace }],
        },
      ];
    }),
  );
  const tokens = {} as Record<Identity, string>;
  for (const n of NAMES) {
    tokens[n] = await serviceAccountToken(env, namespace, IDENTITIES[n]);
    run.redactor.add(tokens[n]);
  }
  const cluster = await clusterOf(env);
  // The grants reach the RBAC authorizer through an informer: wait until each token reads its own ConfigMap.
  for (const n of NAMES)
    await waitFor(
      `${IDENTITIES[n]} may get its ConfigMap`,
      async () =>
        (
          await bearerRequest(cluster, tokens[n], {
            path: `/api/v1/namespaces/${namespace}/configmaps/${configMapOf(n)}`,
          })
        ).status === 200 || undefined,
      { timeoutMs: 30_000 },
    );
  const root = await mkdtemp(join(tmpdir(), 'credprov-xsc-'));
  run.defer(() => rm(root, { recursive: true, force: true }));
  const password = randomBytes(12).toString('hex');
  run.redactor.add(password);
  const tokenFile = join(root, 'static.token');
  await writeFile(tokenFile, tokens.file, { mode: 0o600 });
  const tokenFileNewline = join(root, 'static-newline.token');
  await writeFile(tokenFileNewline, `${tokens.file}\n`, { mode: 0o600 });
  const pluginTokenFile = join(root, 'plugin.token');
  await writeFile(pluginTokenFile, tokens.plugin, { mode: 0o600 });
  return {
    namespace,
    cluster,
    root,
    plugin: join(root, PLUGIN),
    pluginTokenFile,
    tokens,
    tokenFile,
    tokenFileNewline,
    username: 'xsc-basic',
    password,
  };
}

/** The plugin program for one row: it appends its path to `log`, then answers the plugin identity's token. */
export async function writePlugin(f: Fixture, path: string, log: string): Promise<void> {
  await writeFile(path, tokenFilePluginProgram(log, f.pluginTokenFile), { mode: 0o700 });
}
