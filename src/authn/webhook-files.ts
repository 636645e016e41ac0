// Where an environment's token webhook lives and the files the API server
// needs to call it. kube-apiserver reads --authentication-token-webhook-config-file
// only at start, so for environment reuse the webhook must answer at the same
// address, with the same CA, in every run: a fixed port on a loopback
// address derived from the environment's name (all of 127.0.0.0/8 is
// loopback), and a CA and serving certificate kept under the state dir
// (outside the environment's own dir, which `up` clears). The kubeconfig's
// name carries the CA's hash: if the CA ever has to be made anew, the path in
// the spec changes and the runner brings up a fresh API server instead of
// reusing one that trusts the old CA.
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { createCA, issueServerCert } from '../core/tls.ts';
import { stateDir } from '../core/paths.ts';
import { TOKEN_REVIEW_PATH } from './token-webhook.ts';

export const TOKEN_WEBHOOK_PORT = 9443;
/** credprov's OIDC issuer (oidc-issuer.ts) beside the webhook: same address, same serving certificate. */
export const OIDC_ISSUER_PORT = 9444;
/** Certificates are made anew when they have less than this left (src/core/tls.ts makes them for 30 days). */
const RENEW_BEFORE_MS = 2 * 24 * 3600_000;

export interface TokenWebhookFiles {
  dir: string;
  address: string;
  port: number;
  /** https://address:port */
  url: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  /** The key a plugin must present to POST /issue (mode 0600). */
  issueKeyFile: string;
  /** kubeconfig-format file for the API server's --authentication-token-webhook-config-file. */
  kubeconfigFile: string;
  /** https://address:OIDC_ISSUER_PORT: the OIDC issuer's URL (and every JWT's iss). */
  issuerUrl: string;
  issuerPort: number;
}

/** The environment's webhook address: 127.41.a.b from a hash of its name, so two environments do not meet. */
export function tokenWebhookAddress(envName: string): string {
  const h = createHash('sha256').update(envName).digest();
  return `127.41.${h[0]!}.${1 + (h[1]! % 254)}`;
}

export function tokenWebhookDir(envName: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'token-webhooks', envName);
}

/** The environment's webhook files, made once and kept (renewed only near expiry). */
export async function ensureTokenWebhookFiles(
  envName: string,
  env: NodeJS.ProcessEnv = process.env,
  now = Date.now(),
): Promise<TokenWebhookFiles> {
  const dir = tokenWebhookDir(envName, env);
  const address = tokenWebhookAddress(envName);
  const base = {
    dir,
    address,
    port: TOKEN_WEBHOOK_PORT,
    url: `https://${address}:${TOKEN_WEBHOOK_PORT}`,
    caFile: join(dir, 'ca.crt'),
    certFile: join(dir, 'server.crt'),
    keyFile: join(dir, 'server.key'),
    issueKeyFile: join(dir, 'issue.key'),
  };
  if (!(await stillValid(base.certFile, now)) || !(await stillValid(base.caFile, now)))
    await makeCertificates(dir, address);
  if (!(await readFile(base.issueKeyFile, 'utf8').catch(() => '')))
    await writeFile(base.issueKeyFile, `${randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
  const ca = await readFile(base.caFile);
  const kubeconfigFile = join(dir, `webhook-${createHash('sha256').update(ca).digest('hex').slice(0, 12)}.kubeconfig`);
  const text = stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'credprov-token-webhook',
        cluster: { server: `${base.url}${TOKEN_REVIEW_PATH}`, 'certificate-authority': base.caFile },
      },
    ],
    users: [{ name: 'kube-apiserver', user: {} }],
    contexts: [{ name: 'webhook', context: { cluster: 'credprov-token-webhook', user: 'kube-apiserver' } }],
    'current-context': 'webhook',
  });
  if ((await readFile(kubeconfigFile, 'utf8').catch(() => '')) !== text)
    await writeFile(kubeconfigFile, text, { mode: 0o600 });
  // Kubeconfigs for an older CA name a CA file that no longer holds it.
  for (const f of await readdir(dir))
    if (/^webhook-[0-9a-f]+\.kubeconfig$/.test(f) && join(dir, f) !== kubeconfigFile)
      await rm(join(dir, f), { force: true });
  return { ...base, kubeconfigFile, issuerUrl: `https://${address}:${OIDC_ISSUER_PORT}`, issuerPort: OIDC_ISSUER_PORT };
}

async function stillValid(certFile: string, now: number): Promise<boolean> {
  const pem = await readFile(certFile).catch(() => undefined);
  if (!pem) return false;
  try {
    return new Date(new X509Certificate(pem).validTo).getTime() - now > RENEW_BEFORE_MS;
  } catch {
    return false;
  }
}

/** CA and serving certificate made in a scratch dir and moved in, so a crash never leaves a half-made pair. */
async function makeCertificates(dir: string, address: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const scratch = join(dir, `.new-${randomBytes(4).toString('hex')}`);
  try {
    const ca = await createCA(scratch, 'credprov token webhook CA');
    await issueServerCert(ca, scratch, [address], 'server');
    for (const f of ['server.crt', 'server.key', 'ca.key', 'ca.crt']) await rename(join(scratch, f), join(dir, f));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
