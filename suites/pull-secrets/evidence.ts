// What a case shows besides its comparison: its pods' events, its secrets
// (passwords redacted) and service accounts as the API server holds them, the
// registry's authentications per repository; and, only when the case fails,
// the kubelet's and the registry's log lines about its pods and repositories.
import {
  authTrail,
  errorMessage,
  kubeletEvidence,
  podEvents,
  readSecret,
  readServiceAccount,
  registryExcerpt,
  type CaseContext,
  type Evidence,
} from '../../src/run/kit.ts';
import { repositoryOf, type Repo } from './plan.ts';
import type { Fixture } from './fixture.ts';

export interface Shown {
  secrets?: string[];
  serviceAccounts?: string[];
  /** Repositories whose registry authentications to show, in order. */
  repos?: readonly Repo[];
}

export async function evidenceOf(
  ctx: CaseContext,
  fixture: Fixture,
  namespace: string,
  pods: readonly string[],
  shown: Shown = {},
): Promise<Evidence[]> {
  const out: Evidence[] = [];
  for (const name of pods) {
    const events = await podEvents(ctx.environment, name, namespace).catch(() => []);
    out.push({ kind: 'event', label: `events of pod ${namespace}/${name}`, data: events });
  }
  for (const s of shown.secrets ?? []) {
    out.push({ kind: 'data', label: `secret ${namespace}/${s} (redacted)`, data: await secretView(ctx, namespace, s) });
  }
  for (const sa of shown.serviceAccounts ?? []) {
    out.push({
      kind: 'data',
      label: `service account ${namespace}/${sa}`,
      data: await serviceAccountView(ctx, namespace, sa),
    });
  }
  for (const repo of shown.repos ?? []) {
    const trail = await authTrail(fixture.lab, repositoryOf(repo));
    out.push({ kind: 'data', label: `registry authentications for ${repositoryOf(repo)}, in order`, data: trail });
  }
  return out;
}

/** Registers, for when the case fails, the kubelet's log lines about its pods and repositories and the registry's about the latter. */
export function onFailureLogs(
  ctx: CaseContext,
  fixture: Fixture,
  pods: readonly string[],
  repos: readonly Repo[],
): void {
  const repositories = repos.map(repositoryOf);
  ctx.onFailure(async () => [
    ...(await kubeletEvidence(ctx.environment, [...pods, ...repositories])),
    ...(await registryExcerpt(fixture.lab, repositories, ctx)),
  ]);
}

/** A secret as evidence: metadata and the decoded .dockerconfigjson with passwords redacted. */
async function secretView(ctx: CaseContext, namespace: string, name: string): Promise<unknown> {
  try {
    const s = await readSecret(ctx.environment, name, namespace);
    const raw = s.data?.['.dockerconfigjson'];
    const decoded =
      raw === undefined ? undefined : (JSON.parse(Buffer.from(raw, 'base64').toString('utf8')) as unknown);
    // The API server's second-precision time, as it sent it (client-node makes it a Date).
    const created = s.metadata?.creationTimestamp?.toISOString().replace('.000Z', 'Z');
    const view = {
      name: s.metadata?.name,
      type: s.type,
      resourceVersion: s.metadata?.resourceVersion,
      created,
      dockerconfigjson: decoded,
    };
    return ctx.redactor.value(view);
  } catch (err) {
    return { name, error: errorMessage(err) };
  }
}

async function serviceAccountView(ctx: CaseContext, namespace: string, name: string): Promise<unknown> {
  try {
    const sa = await readServiceAccount(ctx.environment, name, namespace);
    return {
      name: sa.metadata?.name,
      resourceVersion: sa.metadata?.resourceVersion,
      imagePullSecrets: sa.imagePullSecrets ?? [],
    };
  } catch (err) {
    return { name, error: errorMessage(err) };
  }
}
