// The AuthenticationConfiguration (apiserver.config.k8s.io/v1) that points
// kube-apiserver's structured JWT authenticator at credprov's OIDC issuer,
// written beside the webhook's files. The API server reads it at start, so
// like the webhook kubeconfig its name carries a hash of its content: the
// same issuer, CA and audiences give the same path (the environment is
// reused), anything else a new path (a new API server).
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { TokenWebhookFiles } from './webhook-files.ts';

/** What the API server prefixes a JWT's sub with: oidc:<sub> (claimMappings.username.prefix). */
export const JWT_USERNAME_PREFIX = 'oidc:';

export function jwtUsernameFor(subject: string): string {
  return `${JWT_USERNAME_PREFIX}${subject}`;
}

export async function ensureAuthenticationConfig(files: TokenWebhookFiles, audiences: string[]): Promise<string> {
  const ca = await readFile(files.caFile, 'utf8');
  const text = stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AuthenticationConfiguration',
    jwt: [
      {
        issuer: {
          url: files.issuerUrl,
          certificateAuthority: ca,
          audiences,
          ...(audiences.length > 1 ? { audienceMatchPolicy: 'MatchAny' } : {}),
        },
        claimMappings: { username: { claim: 'sub', prefix: JWT_USERNAME_PREFIX } },
      },
    ],
  });
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
 * An AuthenticationConfiguration trusting `issuers`, written under `dir` with a
 * hash of its content in its name (same issuers: same path, so an environment
 * is reused; otherwise a new path, so a new API server). Older ones are removed.
 */
export async function ensureJwtAuthenticationConfig(dir: string, issuers: JwtIssuer[]): Promise<string> {
  const text = stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
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
  });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `authn-${createHash('sha256').update(text).digest('hex').slice(0, 12)}.yaml`);
  if ((await readFile(file, 'utf8').catch(() => '')) !== text) await writeFile(file, text, { mode: 0o600 });
  for (const f of await readdir(dir))
    if (/^authn-[0-9a-f]+\.yaml$/.test(f) && join(dir, f) !== file) await rm(join(dir, f), { force: true });
  return file;
}
