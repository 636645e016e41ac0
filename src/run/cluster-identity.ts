// The API server as a relying party outside the cluster sees it: an OIDC
// issuer (discovery, JWKS) and a TokenReview endpoint, through the API client
// with the admin kubeconfig. A token-exchange registry validates service
// account tokens against it (offline and online).
import type { JSONWebKeySet } from 'jose';
import type { ClusterIdentity, OidcDiscovery, TokenReviewStatus } from '../../registry/index.ts';
import { kubeApi, type ApiTarget } from '../cluster/api.ts';

/** The API server as an OIDC issuer and TokenReview endpoint, via the admin kubeconfig. */
export function clusterIdentity(t: ApiTarget): ClusterIdentity {
  let discovered: OidcDiscovery | undefined;
  return {
    async discovery() {
      discovered = JSON.parse(await (await kubeApi(t)).raw('/.well-known/openid-configuration')) as OidcDiscovery;
      return discovered;
    },
    async jwks() {
      const path = discovered ? new URL(discovered.jwks_uri).pathname : '/openid/v1/jwks';
      return JSON.parse(await (await kubeApi(t)).raw(path)) as JSONWebKeySet;
    },
    async tokenReview(token, audiences) {
      // The token goes in the request body only; an error names the call, never the body.
      const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences } };
      const review = await (await kubeApi(t)).authentication.createTokenReview({ body });
      return (review.status ?? {}) as TokenReviewStatus;
    },
  };
}
