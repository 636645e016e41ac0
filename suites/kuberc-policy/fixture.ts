// What every kuberc-policy case starts from: a ServiceAccount whose token the
// API server issues (the plugin's answer, known to the redactor), a private
// dir removed after the case, and the fake plugin's program.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyObjects, serviceAccount, serviceAccountToken, type CaseContext } from '../../src/run/kit.ts';

const USER = 'plugin-user';

export interface CaseFixture {
  token: string;
  /** The user the API server sees when the plugin's token is used. */
  user: string;
  root: string;
}

export async function caseFixture(ctx: CaseContext, label: string): Promise<CaseFixture> {
  const env = ctx.environment;
  const namespace = await ctx.namespace('krc');
  await applyObjects(env, [serviceAccount(namespace, USER)]);
  const token = await serviceAccountToken(env, namespace, USER);
  ctx.redactor.add(token);
  const root = await mkdtemp(join(tmpdir(), `credprov-krc-${label}-`));
  ctx.defer(() => rm(root, { recursive: true, force: true }));
  return { token, user: `system:serviceaccount:${namespace}:${USER}`, root };
}
