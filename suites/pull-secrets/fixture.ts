// What every case gets: the suite's registry, fake provider and accounts, and
// a namespace of its own (ctx.namespace(): deleted after the case, kept with
// its events when it fails) holding the secrets and service accounts it asks
// for. The cases share no object, so each one sets up only what it uses.
import { kubeApi } from '../../src/cluster/api.ts';
import { type CaseContext, type Fleet, type LabRegistry } from '../../src/run/kit.ts';
import {
  SERVICE_ACCOUNTS,
  authsOf,
  type Accounts,
  type Login,
  type SecretName,
  type ServiceAccountName,
} from './plan.ts';
import type { World } from './predict.ts';

export interface Fixture {
  lab: LabRegistry;
  fleet: Fleet;
  /** The registry's host, as images name it. */
  host: string;
  accounts: Accounts;
}

export const worldOf = (fixture: Fixture): World => ({ host: fixture.host, accounts: fixture.accounts });

const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'credprov' };

/** A kubernetes.io/dockerconfigjson secret with `auths` (host → login). */
export function dockerSecret(namespace: string, name: string, auths: Record<string, Login>) {
  const entries = Object.entries(auths).map(([host, login]) => [
    host,
    {
      username: login.username,
      password: login.password,
      auth: Buffer.from(`${login.username}:${login.password}`).toString('base64'),
    },
  ]);
  const config = { auths: Object.fromEntries(entries) };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: { name, namespace, labels: MANAGED_BY },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}

export function serviceAccount(namespace: string, name: string, pullSecrets: readonly string[]) {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name, namespace },
    ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets.map((s) => ({ name: s })) } : {}),
  };
}

/** The case's namespace (ready for pods: ctx.namespace() waits for that) with `secrets` (as plan's SECRETS holds them) and `serviceAccounts`. */
export async function caseNamespace(
  ctx: CaseContext,
  fixture: Fixture,
  name: string,
  contents: { secrets?: SecretName[]; serviceAccounts?: ServiceAccountName[] } = {},
): Promise<string> {
  const namespace = await ctx.namespace(`credprov-secrets-${name}`);
  const api = await kubeApi(ctx.environment);
  const objects = [
    ...(contents.secrets ?? []).map((s) => dockerSecret(namespace, s, authsOf(s, fixture.host, fixture.accounts))),
    ...(contents.serviceAccounts ?? []).map((sa) => serviceAccount(namespace, sa, SERVICE_ACCOUNTS[sa])),
  ];
  await Promise.all(objects.map((o) => api.apply([o])));
  return namespace;
}
