// KEP-4412's API-server side, on a real kube-apiserver with Node,RBAC and
// NodeRestriction: a node may request a service-account token for an audience
// only when RBAC grants it `request-serviceaccounts-token-audience` on a
// resource named after the audience. The requests are made with the node's
// own client certificate, exactly as the kubelet makes them.
import { afterAll, describe, expect } from '@jest/globals';
import { applyDefaults } from '../../src/api/spec/defaults.ts';
import { CommandError } from '../../src/core/errors.ts';
import { silentProgress } from '../../src/core/progress.ts';
import { apply, kubectl, kubectlJson } from '../../src/cluster/kubectl.ts';
import { localProvider } from '../../src/cluster/local/index.ts';
import { layoutFor } from '../../src/cluster/local/layout.ts';
import { SANDBOX_IMAGE_REF } from '../../src/cluster/local/sandbox-image.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { allowNodesTokenAudience } from '../../src/cluster/rbac.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';
import { e2eEnvName } from '../../src/testing/env-name.ts';

const ENV_NAME = e2eEnvName('audience');
const provider = localProvider();
const available = await provider.isAvailable();
const it = testIf(
  all(isRoot(), available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` }),
);

let env: Environment | undefined;
let podUid = '';

async function setup(): Promise<Environment> {
  if (env) return env;
  env = await provider.up(applyDefaults({ name: ENV_NAME }), silentProgress);
  const admin = { kubectl: env.kubectl, kubeconfig: env.kubeconfig };
  await apply(admin, [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'holder', namespace: 'default' },
      spec: {
        nodeName: env.nodeName,
        automountServiceAccountToken: false,
        containers: [{ name: 'c', image: SANDBOX_IMAGE_REF, imagePullPolicy: 'Never' }],
      },
    },
  ]);
  podUid = (await kubectlJson<{ metadata: { uid: string } }>(admin, ['get', 'pod', 'holder'])).metadata.uid;
  return env;
}

let lastToken = '';

/** `kubectl create token` as the node, bound to the pod on it; resolves with the error text or 'allowed'. */
async function nodeRequestsToken(audiences: string[], sa = 'default'): Promise<string> {
  const e = await setup();
  const asNode = { kubectl: e.kubectl, kubeconfig: layoutFor(ENV_NAME).kubeletKubeconfig };
  try {
    lastToken = await kubectl(asNode, [
      'create',
      'token',
      sa,
      '-n',
      'default',
      ...audiences.flatMap((a) => ['--audience', a]),
      '--bound-object-kind',
      'Pod',
      '--bound-object-name',
      'holder',
      '--bound-object-uid',
      podUid,
    ]);
    return 'allowed';
  } catch (err) {
    if (err instanceof CommandError) return err.detail ?? err.reason;
    throw err;
  }
}

/** RBAC changes reach the authorizer through an informer: retry a grant's first use for a few seconds. */
async function allowedSoon(audiences: string[], timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = await nodeRequestsToken(audiences);
    if (out === 'allowed' || Date.now() > deadline) return out;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const deniedFor = (aud: string) =>
  new RegExp(
    `serviceaccounts "default" is forbidden: (system:node:\\S+ is not authorized to request tokens for audience "${aud}"|audience "${aud}" not found in pod spec volume, system:node:\\S+ is not authorized to request tokens for this audience)`,
  );

const admin = () => ({ kubectl: env!.kubectl, kubeconfig: env!.kubeconfig });

describe('node token requests for credential-provider audiences (NodeRestriction + RBAC)', () => {
  afterAll(async () => {
    await provider.down(ENV_NAME);
  });

  it("AUD-DENIED: without RBAC the node is refused with NodeRestriction's message", async () => {
    const out = await nodeRequestsToken(['credprov-aud-denied']);
    // Seen on v1.37.1: `serviceaccounts "default" is forbidden: system:node:N is not authorized to request
    // tokens for audience "A"`. Older releases said `audience "A" not found in pod spec volume, system:node:N
    // is not authorized to request tokens for this audience`; both are NodeRestriction refusing.
    expect(out).toMatch(deniedFor('credprov-aud-denied'));
  }, 180_000);

  it('AUD-CLUSTERROLE: a ClusterRole on the audience for group system:nodes allows it', async () => {
    await setup();
    await allowNodesTokenAudience(admin(), 'credprov-aud-cluster');
    expect(await allowedSoon(['credprov-aud-cluster'])).toBe('allowed');
  }, 180_000);

  it("AUD-NAMESPACED: a Role in the service account's namespace is enough (the check carries that namespace)", async () => {
    await setup();
    // Both grants first; once the matching one works the authorizer has seen the other as well.
    await allowNodesTokenAudience(admin(), 'credprov-aud-otherns', { namespace: 'kube-system' });
    await allowNodesTokenAudience(admin(), 'credprov-aud-ns', { namespace: 'default' });
    expect(await allowedSoon(['credprov-aud-ns'])).toBe('allowed');
    expect(await nodeRequestsToken(['credprov-aud-otherns'])).toMatch(deniedFor('credprov-aud-otherns'));
  }, 180_000);

  it('AUD-RESOURCENAME: resourceNames narrow the grant to service-account names', async () => {
    await setup();
    await allowNodesTokenAudience(admin(), 'credprov-aud-other-sa', { serviceAccounts: ['someone-else'] });
    await allowNodesTokenAudience(admin(), 'credprov-aud-named', { serviceAccounts: ['default'] });
    expect(await allowedSoon(['credprov-aud-named'])).toBe('allowed');
    expect(await nodeRequestsToken(['credprov-aud-other-sa'])).toMatch(deniedFor('credprov-aud-other-sa'));
  }, 180_000);

  it('AUD-EXPIRY: a token request without expirationSeconds (as the kubelet sends for plugins) lives one hour', async () => {
    await setup();
    await allowNodesTokenAudience(admin(), 'credprov-aud-expiry');
    expect(await allowedSoon(['credprov-aud-expiry'])).toBe('allowed');
    const claims = JSON.parse(Buffer.from(lastToken.trim().split('.')[1]!, 'base64url').toString()) as {
      exp: number;
      iat: number;
      aud: string[];
    };
    expect(claims.aud).toEqual(['credprov-aud-expiry']);
    expect(claims.exp - claims.iat).toBe(3600);
  }, 180_000);

  it('AUD-SA-GET: a node may GET the ServiceAccount of a pod bound to it (the kubelet reads its annotations), and no other', async () => {
    const e = await setup();
    await apply(admin(), [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'unused', namespace: 'default' } },
    ]);
    const asNode = { kubectl: e.kubectl, kubeconfig: layoutFor(ENV_NAME).kubeletKubeconfig };
    const get = (name: string) =>
      kubectl(asNode, ['get', 'serviceaccount', name, '-n', 'default', '-o', 'name']).then(
        (o) => o.trim(),
        (err: unknown) => (err as CommandError).detail ?? String(err),
      );
    expect(await get('default')).toBe('serviceaccount/default');
    expect(await get('unused')).toMatch(/forbidden: User "system:node:\S+" cannot get resource "serviceaccounts"/);
  }, 180_000);

  it('AUD-ONE: a node may ask for at most one audience per token', async () => {
    await setup();
    expect(await nodeRequestsToken(['credprov-aud-cluster', 'credprov-aud-named'])).toMatch(
      /node may only request 0 or 1 audiences/,
    );
  }, 180_000);
});
