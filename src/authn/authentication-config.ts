// The AuthenticationConfiguration that points kube-apiserver's structured JWT
// authenticator at credprov's OIDC issuer (or a cloud's fake), written beside
// the webhook's files in the apiVersion the API server's version reads (version
// table authenticationConfigApiVersion: v1beta1 on 1.33, v1 from 1.34). The
// API server reads it at start, so like the webhook kubeconfig its name
// carries a hash of its content: the same issuer, CA, audiences and version
// give the same path (the environment is reused), anything else a new path
// (a new API server).
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { behaviourFor, type KubeBehaviour } from '../versions/table.ts';
import type { TokenWebhookFiles } from './webhook-files.ts';

/** What the API server prefixes a JWT's sub with: oidc:<sub> (claimMappings.username.prefix). */
export const JWT_USERNAME_PREFIX = 'oidc:';

export function jwtUsernameFor(subject: string): string {
  return `${JWT_USERNAME_PREFIX}${subject}`;
}

/**
 * The AuthenticationConfiguration trusting `issuers`, as kube-apiserver of `b` reads it. The jwt[] fields
 * used here are the same in v1beta1 (k8s.io/apiserver v0.33.13 pkg/apis/apiserver/v1beta1/types.go:
 * certificateAuthority, audiences, audienceMatchPolicy, claimMappings.username.prefix) and v1.
 */
export function authenticationConfiguration(b: KubeBehaviour, issuers: JwtIssuer[]): Record<string, unknown> {
  return {
    apiVersion: b.authenticationConfigApiVersion,
    kind: 'AuthenticationConfiguration',
    jwt: issuers.map((i) => ({
      issuer: {
        url: i.url,
        certificateAuthority: i.caPem,
        audiences: i.audiences,
        ...(i.audiences.length > 1 ? { audienceMatchPolicy: 'MatchAny' } : {}),
      },
      claimMappings: { username: { claim: i.username.claim, prefix: i.username.prefix } },
    })),
  };
}

/** credprov's own issuer (the webhook files' CA and URL) for `audiences`, for kube-apiserver `kubeVersion` (a suite's ctx.kubeVersion). */
export async function ensureAuthenticationConfig(
  files: TokenWebhookFiles,
  audiences: string[],
  kubeVersion: string,
): Promise<string> {
  const ca = await readFile(files.caFile, 'utf8');
  const b = behaviourFor(kubeVersion);
  const text = stringify(
    authenticationConfiguration(b, [
      { url: files.issuerUrl, caPem: ca, audiences, username: { claim: 'sub', prefix: JWT_USERNAME_PREFIX } },
    ]),
  );
  const file = join(files.dir, `authn-${createHash('sha256').update(text).digest('hex').slice(0, 12)}.yaml`);
  if ((await readFile(file, 'utf8').catch(() => '')) !== text) await writeFile(file, text, { mode: 0o600 });
  // Older ones name an issuer, CA or audiences no longer served.
  for (const f of await readdir(files.dir))
    if (/^authn-[0-9a-f]+\.yaml$/.test(f) && join(files.dir, f) !== file) await rm(join(files.dir, f), { force: true });
  return file;
}

/** A JWT issuer kube-apiserver trusts (another identity provider than credprov's own: a cloud's fake). */
export interface JwtIssuer {
  url: string;
  /** PEM of the CA that signed the issuer's serving certificate. */
  caPem: string;
  audiences: string[];
  /** The claim the username comes from, and its prefix. */
  username: { claim: string; prefix: string };
}

/**
 * An AuthenticationConfiguration trusting `issuers` for kube-apiserver `kubeVersion`, written under `dir`
 * with a hash of its content in its name (same issuers and version: same path, so an environment is
 * reused; otherwise a new path, so a new API server). Older ones are removed.
 */
export async function ensureJwtAuthenticationConfig(
  dir: string,
  issuers: JwtIssuer[],
  kubeVersion: string,
): Promise<string> {
  const text = stringify(authenticationConfiguration(behaviourFor(kubeVersion), issuers));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `authn-${createHash('sha256').update(text).digest('hex').slice(0, 12)}.yaml`);
  if ((await readFile(file, 'utf8').catch(() => '')) !== text) await writeFile(file, text, { mode: 0o600 });
  for (const f of await readdir(dir))
    if (/^authn-[0-9a-f]+\.yaml$/.test(f) && join(dir, f) !== file) await rm(join(dir, f), { force: true });
  return file;
}
