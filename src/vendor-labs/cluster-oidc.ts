// The API server's service-account issuer as an OIDC provider: its discovery
// document and JWKS, read with the admin kubeconfig (the same bytes a cloud's
// IAM OIDC provider would fetch from <issuer>/.well-known/openid-configuration).
import { kubectl, type KubeTarget } from '../cluster/kubectl.ts';
import type { OidcTrust } from '../fake-clouds/aws/index.ts';

export interface ClusterOidc extends OidcTrust {
  discovery: { issuer: string; jwks_uri: string; id_token_signing_alg_values_supported?: string[] };
}

export async function clusterOidc(t: KubeTarget): Promise<ClusterOidc> {
  const discovery = JSON.parse(
    await kubectl(t, ['get', '--raw', '/.well-known/openid-configuration']),
  ) as ClusterOidc['discovery'];
  // jwks_uri names the issuer's host; the API server serves the same keys at this path.
  const jwks = JSON.parse(await kubectl(t, ['get', '--raw', '/openid/v1/jwks'])) as ClusterOidc['jwks'];
  if (!discovery.issuer || !Array.isArray(jwks.keys) || jwks.keys.length === 0)
    throw new Error("the API server's OIDC discovery document or JWKS is empty");
  return { issuer: discovery.issuer, jwks, discovery };
}
