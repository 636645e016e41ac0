// The e2e table's further tests over the vendor suites' runs (suite-table.ts):
// no secret a lab issued reaches the report or any file the run wrote, while
// what is not secret stays readable; and the environment torn down, with what
// a vendor lab put on the host (an /etc/hosts line, a token server) gone.
import { expect } from '@jest/globals';
import { readdir, readFile } from 'node:fs/promises';
import { HostsFile } from '../../src/core/hosts.ts';
import { filesUnder, JWT, leaks, type RecordingRedactor } from '../../src/testing/secret-scan.ts';
import type { SuitesOnProvider } from '../../src/testing/suite-on-provider.ts';
import { teardownExtra } from './suite-extras.ts';

const seen = (h: SuitesOnProvider): string[] => (h.redactor as RecordingRedactor).seen;

export function ecrExtras(h: SuitesOnProvider, timeoutMs: number): void {
  h.it(
    'ECR-SECRETS: no AWS secret, registry password or service-account token reaches the report',
    async () => {
      const { report } = await h.run();
      const text = JSON.stringify(report);
      expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./);
      expect(text).not.toMatch(/"password":"(?!<redacted>)/);
      // …and nothing that is not a secret is hidden: the evidence keeps accounts, roles and token claims readable.
      expect(text).toContain('111122223333.dkr.ecr.us-east-1.amazonaws.com');
      expect(text).toMatch(/"sub":"system:serviceaccount:default:ecr-puller-/);
    },
    timeoutMs,
  );
  teardownExtra('ECR')(h, timeoutMs);
}

export function acrExtras(h: SuitesOnProvider, timeoutMs: number): void {
  h.it(
    'ACR-SECRETS: no client secret, identity header, access or refresh token, registry password or service-account token reaches any artefact',
    async () => {
      const { report } = await h.run();
      // The client secret, the refresh token, the identity header and the access tokens (identity endpoint, Azure AD).
      expect(new Set(seen(h)).size).toBeGreaterThanOrEqual(5);
      expect(await leaks(h.dir(), seen(h))).toEqual([]);
      const text = JSON.stringify(report);
      expect(text).not.toMatch(/"password":"(?!<redacted>)/);
      // …and nothing that is not a secret is hidden: login servers and the exchange's user stay readable.
      expect(text).toMatch(/credprov[0-9a-f]{6}\.azurecr\.io/);
      expect(text).toContain('00000000-0000-0000-0000-000000000000');
    },
    timeoutMs,
  );
  teardownExtra('ACR')(h, timeoutMs);
}

/** Access tokens as the fake Google endpoint issues them (TokenBook), and any PEM private key. */
const GKE_TOKEN_SHAPE = /cp401\.[A-Za-z0-9_-]{20,}/;
const KEY_SHAPE = /PRIVATE KEY-----|MII[A-Za-z0-9+/]{60,}/;

export function gkeExtras(h: SuitesOnProvider, timeoutMs: number): void {
  h.it(
    'GKE-SECRETS: no private key or access token reaches the report or any artifact, and the evidence stays readable',
    async () => {
      const { report } = await h.run();
      const secrets = [...new Set(seen(h))];
      // The lab's 9 private keys (as PEM, JSON-escaped PEM and bare base64) and every token the fake issued were registered.
      expect(secrets.filter((s) => s.startsWith('cp401.')).length).toBeGreaterThan(5);
      expect(secrets.filter((s) => s.includes('PRIVATE KEY')).length).toBe(18);
      const files = await filesUnder(h.dir());
      expect(files.some((f) => f.endsWith('fake-google-requests.jsonl'))).toBe(true);
      expect(await leaks(h.dir(), secrets, [GKE_TOKEN_SHAPE, KEY_SHAPE, JWT])).toEqual([]);
      const texts = [JSON.stringify(report), ...(await Promise.all(files.map((f) => readFile(f, 'utf8'))))];
      for (const text of texts) for (const shape of [GKE_TOKEN_SHAPE, KEY_SHAPE, JWT]) expect(text).not.toMatch(shape);
      const reportText = JSON.stringify(report);
      expect(secrets.filter((s) => s.length >= 8 && reportText.includes(s)).length).toBe(0);
      const all = texts.join('\n');
      expect(all).toContain('gke-viewer@credprov-lab.iam.gserviceaccount.com');
      expect(all).toContain('urn:ietf:params:oauth:grant-type:jwt-bearer');
      expect(all).toContain('credprov:exec:gke-viewer');
    },
    timeoutMs,
  );
  teardownExtra('GKE')(h, timeoutMs);
}

export function kubeloginExtras(h: SuitesOnProvider, timeoutMs: number): void {
  h.it(
    'KUBELOGIN-SECRETS: no client secret, password, refresh, id or access token reaches the report or any artifact; what is not secret stays readable',
    async () => {
      const { report } = await h.run();
      // Passwords and client secrets (5), and at least a token triple per login.
      expect(seen(h).length).toBeGreaterThan(20);
      const text = JSON.stringify(report);
      expect(text).not.toMatch(JWT);
      for (const s of seen(h)) expect(text.includes(s) ? 'a secret in report.json' : 'clean').toBe('clean');
      // Something was written to scan: at least the token endpoint's request log.
      expect((await filesUnder(h.dir())).some((f) => f.endsWith('token-endpoint-requests.jsonl'))).toBe(true);
      expect(await leaks(h.dir(), seen(h))).toEqual([]);
      expect(text).toContain('oidc:alice');
      expect(text).toContain('refresh_token/body:400');
    },
    timeoutMs,
  );
  teardownExtra('KUBELOGIN')(h, timeoutMs);
}

/** A presigned EKS token, or its signature: neither may reach an artefact. */
export const EKS_TOKEN_SHAPES = [/k8s-aws-v1\.[A-Za-z0-9_-]{20,}/, /X-Amz-Signature=[0-9a-f]{16}/i];

export function awsIamExtras(h: SuitesOnProvider, timeoutMs: number): void {
  h.it(
    'IAM-SECRETS: no AWS secret or token (of either command) reaches the report or any artifact, and what is not secret stays readable',
    async () => {
      const { report } = await h.run();
      const text = JSON.stringify(report);
      for (const shape of EKS_TOKEN_SHAPES) expect(text).not.toMatch(shape);
      // The lab's four secret keys, and every token either command printed.
      expect(seen(h).length).toBeGreaterThan(10);
      expect((await filesUnder(h.dir())).some((f) => f.endsWith('fake-sts-requests.jsonl'))).toBe(true);
      expect(await leaks(h.dir(), seen(h), EKS_TOKEN_SHAPES)).toEqual([]);
      expect(text).toContain('arn:aws:iam::111122223333:user/credprov-dev');
      expect(text).toContain('sts.us-west-2.amazonaws.com');
      expect(text).not.toContain('<redacted>');
    },
    timeoutMs,
  );
  h.it(
    'IAM-TEARDOWN: the run tears its environment down, and leaves no /etc/hosts line for STS and no authenticator server running',
    async () => {
      const { tornDown } = await h.run();
      expect(tornDown).toBe(true);
      const ours = (await new HostsFile().entries()).filter((e) =>
        e.owner.startsWith(`vendor/aws-iam-authenticator/${process.pid}-`),
      );
      expect(ours).toEqual([]);
      expect(await labServers()).toEqual([]);
    },
    timeoutMs,
  );
}

/** Running `aws-iam-authenticator server` processes of a credprov lab (their config lives in a credprov-iam-* dir). */
async function labServers(): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (
      argv[0]?.endsWith('/aws-iam-authenticator') &&
      argv[1] === 'server' &&
      argv.some((a) => a.includes('/credprov-iam-'))
    )
      found.push(`${pid}: ${argv.join(' ')}`);
  }
  return found;
}
