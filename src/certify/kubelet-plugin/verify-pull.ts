// --verify-pull: do the credentials the plugin returned actually open the
// image in its registry? For each probe image, the response's auth entries
// that the kubelet would use for it (keyring order: keys sorted in reverse)
// are tried the way a runtime tries them, until one reads the manifest.
import { canPull, type PullCheck, parseRef, formatRef } from '../../../registry/index.ts';
import { authKeyMatches } from '../../matching/url.ts';
import { fail, pass, skip, type Outcome } from '../../report/checks.ts';
import type { Check, Evidence } from '../../report/model.ts';
import { basisOf } from '../kit.ts';
import type { CertifyContext, ExtraCheck } from './certify.ts';
import { repositoryOf } from './images.ts';

export const CREDENTIALS_OPEN_IMAGE: Check = {
  id: 'KP-CREDENTIALS-OPEN-IMAGE',
  title: 'The credentials the plugin returns open the requested image in its registry',
  level: 'MUST',
  source:
    'KEP-2133: the kubelet passes the auth entries matching the image to the container runtime, which pulls with them; credentials that do not authorize the pull make the pod fail with ErrImagePull',
};

export interface VerifyPullOptions {
  /** The images as the user gave them (with tags); probes only keep the repository. */
  images?: string[];
  /** PEM CA to trust for https registries (e.g. a credprov registry's caFile). */
  ca?: string;
  /** Talk plain http (a registry without TLS). */
  plainHttp?: boolean;
  /** Image host → the registry (host[:port]) that serves it, e.g. an ECR-shaped name served by a local registry. */
  registryFor?: Record<string, string>;
  /** Replaces the registry client (tests). */
  canPull?: typeof canPull;
}

interface AuthEntry {
  username?: string;
  password?: string;
}

export function verifyPullCheck(o: VerifyPullOptions = {}): ExtraCheck {
  return {
    check: CREDENTIALS_OPEN_IMAGE,
    run: (ctx) => verifyPull(ctx, o),
    basis: (obs) =>
      basisOf(
        obs.probes.filter((p) => p.analysis?.accepted),
        () => 'no response the kubelet accepted, so no credentials to try (see KP-EXEC and the decoding checks)',
      ),
  };
}

export async function verifyPull(ctx: CertifyContext, o: VerifyPullOptions): Promise<Outcome> {
  const ask = o.canPull ?? canPull;
  const answered = ctx.probes.filter((p) => p.analysis?.accepted && p.analysis.object);
  if (answered.length === 0)
    return skip('no response the kubelet accepted, so no credentials to try (see KP-EXEC and the decoding checks)');
  const evidence: Evidence[] = [];
  const failures: string[] = [];
  const passes: string[] = [];
  for (const probe of answered) {
    const ref = pullRef(probe.image, o.images ?? []);
    const auth = (probe.analysis!.object!.auth ?? {}) as Record<string, AuthEntry>;
    const keys = Object.keys(auth)
      .filter((k) => authKeyMatches(k, probe.image).match)
      .sort()
      .reverse();
    if (keys.length === 0) {
      failures.push(
        `${ref}: the response has no auth entry matching the image (keys: ${Object.keys(auth).join(', ') || 'none'})`,
      );
      continue;
    }
    const tries: Array<{ key: string; username: string; result: PullCheck }> = [];
    for (const key of keys) {
      const { username = '', password = '' } = auth[key] ?? {};
      ctx.redactor.add(password);
      const result = await ask(
        reachAt(ref, o.registryFor),
        { username, password },
        { ...(o.ca ? { ca: o.ca } : {}), ...(o.plainHttp ? { plainHttp: true } : {}) },
      );
      tries.push({ key, username, result });
      if (result.ok) break;
    }
    evidence.push({
      kind: 'data',
      label: `pull check for ${ref}`,
      data: tries.map((t) => ({
        authKey: t.key,
        username: t.username,
        ok: t.result.ok,
        status: t.result.status,
        step: t.result.step,
        reason: ctx.redactor.text(t.result.reason),
      })),
    });
    const ok = tries.find((t) => t.result.ok);
    const at = reachAt(ref, o.registryFor);
    if (ok)
      passes.push(
        `${ref} (auth key ${ok.key}, user ${ok.username}${at !== ref ? `, served by ${parseRef(at).host}` : ''})`,
      );
    else {
      const last = tries.at(-1)!;
      const who =
        tries.length === 1
          ? `the credentials for auth key ${last.key} (user ${last.username})`
          : `none of the ${tries.length} matching credentials`;
      failures.push(`${ref}: ${who} did not open it: ${ctx.redactor.text(last.result.reason)}`);
    }
  }
  if (failures.length > 0)
    return fail(
      failures.length === 1 ? failures[0]! : `${failures.length} images not opened: ${failures.join('; ')}`,
      evidence,
    );
  return pass(`credentials opened ${passes.join(', ')}`, evidence);
}

/** `ref` with its host replaced by the registry that serves it (--registry-for), else unchanged. */
export function reachAt(ref: string, registryFor: Record<string, string> = {}): string {
  const r = parseRef(ref);
  const to = r.host ? registryFor[r.host] : undefined;
  return to ? formatRef({ ...r, host: to }) : ref;
}

/** The reference to pull for a probe: the user's --image with its tag when it is that repository, else the repository at latest. */
export function pullRef(repository: string, given: string[]): string {
  const original = given.find((g) => {
    try {
      return repositoryOf(g) === repository;
    } catch {
      return false;
    }
  });
  const r = parseRef(original ?? repository);
  const repo = parseRef(repository);
  // Docker Hub's API lives at registry-1.docker.io, not at the name images use.
  const host = repo.host === 'docker.io' || repo.host === 'index.docker.io' ? 'registry-1.docker.io' : repo.host;
  return formatRef({
    ...(host ? { host } : {}),
    name: repo.name,
    ...(r.digest ? { digest: r.digest } : { tag: r.tag ?? 'latest' }),
  });
}
