// What every case gets: the suite's registry, fake provider and accounts, and
// a namespace of its own (ctx.namespace(): deleted after the case, kept with
// its events when it fails) holding the secrets and service accounts it asks
// for. The cases share no object, so each one sets up only what it uses.
import {
  applyObjects,
  pullSecret,
  serviceAccount,
  type CaseContext,
  type Fleet,
  type LabRegistry,
} from '../../src/run/kit.ts';
import { SERVICE_ACCOUNTS, authsOf, type Accounts, type SecretName, type ServiceAccountName } from './plan.ts';
import type { World } from './predict.ts';

export interface Fixture {
  lab: LabRegistry;
  fleet: Fleet;
  /** The registry's host, as images name it. */
  host: string;
  accounts: Accounts;
}

export const worldOf = (fixture: Fixture): World => ({ host: fixture.host, accounts: fixture.accounts });

/** The case's namespace (ready for pods: ctx.namespace() waits for that) with `secrets` (as plan's SECRETS holds them) and `serviceAccounts`. */
export async function caseNamespace(
  ctx: CaseContext,
  fixture: Fixture,
  name: string,
  contents: { secrets?: SecretName[]; serviceAccounts?: ServiceAccountName[] } = {},
): Promise<string> {
  const namespace = await ctx.namespace(`credprov-secrets-${name}`);
  await applyObjects(ctx.environment, [
    ...(contents.secrets ?? []).map((s) =>
      pullSecret({ name: s, namespace, auths: authsOf(s, fixture.host, fixture.accounts) }),
    ),
    ...(contents.serviceAccounts ?? []).map((sa) => serviceAccount(namespace, sa, SERVICE_ACCOUNTS[sa])),
  ]);
  return namespace;
}
