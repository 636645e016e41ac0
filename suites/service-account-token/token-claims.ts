// SA-TOKEN-CLAIMS: the token in the plugin's request, as a relying party
// reads it: claims bound to the pod and node, issuer from OIDC discovery,
// signature verified against the cluster's JWKS, the TokenRequest default
// lifetime.
import { decodeJwt } from 'jose';
import {
  caseOf,
  clusterIdentity,
  createSaPod,
  judge,
  observePod,
  ServiceAccountTokenAuth,
  type Case,
} from '../../src/run/kit.ts';
import { TOKEN_CLAIMS } from './checks.ts';
import type { SuiteFixture } from './fixture.ts';
import { CLAIMS_POD, labImage, POD_TIMEOUT_MS } from './plan.ts';
import { predictTokenClaims, SIGNATURE_VERIFIED } from './predict.ts';
import { podInvocations, seenByPlugin, showPluginView } from './views.ts';

/** The pod-bound part of an SA token's claims (claims.go privateClaims). */
interface KubernetesClaims {
  namespace?: string;
  serviceaccount?: unknown;
  pod?: unknown;
  node?: unknown;
}

export const tokenClaimsCase = (f: SuiteFixture): Case =>
  caseOf(TOKEN_CLAIMS, async (ctx) => {
    const plan = f.plans.claims;
    const discovery = await clusterIdentity(f.env).discovery();
    const created = await createSaPod(f.env, f.namespace, {
      name: CLAIMS_POD.name,
      image: labImage(plan),
      serviceAccount: CLAIMS_POD.serviceAccount,
    });
    f.kubeletLinesOnFailure(ctx, [CLAIMS_POD.name]);
    const prediction = predictTokenClaims(f.predictor, f.plans, {
      audience: f.audiences.main,
      issuer: discovery.issuer,
      podUid: created.metadata!.uid!,
      node: f.node,
    });
    const ran = await observePod(f.env, CLAIMS_POD.name, f.namespace, POD_TIMEOUT_MS);
    const invocations = podInvocations(await f.invocations(plan), CLAIMS_POD.name);
    const jwt = await f.capturedToken(invocations.find((i) => i.tokenSha256)?.tokenSha256);
    const verifier = new ServiceAccountTokenAuth({
      cluster: clusterIdentity(f.env),
      audience: f.audiences.main,
      access: () => [],
    });
    const offline = jwt ? await verifier.offline(jwt) : undefined;
    const claims = jwt ? decodeJwt(jwt) : undefined;
    const bound = claims?.['kubernetes.io'] as KubernetesClaims | undefined;
    const { annotations: _annotations, ...seen } = seenByPlugin(invocations);
    const observed = {
      ...seen,
      pull: ran.observed,
      signature: offline?.ok ? SIGNATURE_VERIFIED : `not verified: ${offline?.reason ?? 'no token captured'}`,
      iss: claims?.iss,
      aud: typeof claims?.aud === 'string' ? [claims.aud] : claims?.aud,
      sub: claims?.sub,
      kubernetes: bound
        ? { namespace: bound.namespace, serviceaccount: bound.serviceaccount, pod: bound.pod, node: bound.node }
        : undefined,
      lifetimeSeconds: claims?.exp !== undefined && claims.iat !== undefined ? claims.exp - claims.iat : undefined,
    };
    return judge<unknown>(TOKEN_CLAIMS, {
      prediction,
      observed,
      show: (v) => {
        const o = v as typeof observed;
        return (
          `${showPluginView({ ...o, pull: o.pull })}; token aud ${JSON.stringify(o.aud)}, sub ${o.sub}, ` +
          `bound to pod ${JSON.stringify(o.kubernetes?.pod)} on node ${JSON.stringify(o.kubernetes?.node)}, iss ${o.iss}, ` +
          `lifetime ${o.lifetimeSeconds}s, signature ${o.signature}`
        );
      },
      evidence: [
        f.eventsEvidence(ran),
        f.invocationEvidence(`invocations of ${plan.name}`, invocations),
        {
          kind: 'data',
          label: "the token's header and claims (never the token)",
          data: { header: offline ? { alg: offline.alg, kid: offline.kid } : undefined, claims },
        },
        { kind: 'data', label: 'OIDC discovery (/.well-known/openid-configuration)', data: discovery },
      ],
    });
  });
