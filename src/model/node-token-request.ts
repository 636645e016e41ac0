// The API server's answer to a kubelet's TokenRequest (POST
// serviceaccounts/<sa>/token, bound to a pod) made with the node's own
// identity (user system:node:<node>, group system:nodes), in the order the
// request meets the rules in v1.37.1. Part of the service-account model
// (service-account-token.ts predicts the kubelet's side of KEP-4412; this is
// what lets one kubelet, and no other, get a pod's token).
//
// 1. Authorization. plugin/pkg/auth/authorizer/node/node_authorizer.go
//    authorizeCreateToken: verb create on subresource token of a named SA is
//    allowed only when the node authorizer's graph has a path SA → pod → node,
//    i.e. a pod of this SA in this namespace is bound to the requesting node
//    (hasPathFrom). Otherwise it has no opinion ("no relationship found between
//    node '<node>' and this object") and RBAC decides: the default policy binds
//    nobody to system:node (since 1.8), so without a grant of create on
//    serviceaccounts/token the request is Forbidden (403).
// 2. Admission. plugin/pkg/admission/noderestriction/admission.go
//    admitServiceAccount: the token must be bound to a pod (apiVersion v1, kind
//    Pod, name and uid set); the pod must exist (else its NotFound, 404) with
//    that UID; it must be scheduled on the requesting node ("node requested
//    token bound to a pod scheduled on a different node"). Then, with
//    ServiceAccountNodeAudienceRestriction, validateNodeServiceAccountAudience:
//    at most one audience; allowed when a projected SA-token volume of the pod
//    names it, else when RBAC grants the node request-serviceaccounts-token-audience
//    on resource <audience> for the SA (audienceAllowed, the rule the kubelet
//    side uses too). Every refusal there is Forbidden (403).
// 3. Otherwise the token is issued (201 Created).
import type { KubeBehaviour } from '../versions/table.ts';
import { audienceAllowed, type AudienceGrant } from './service-account-token.ts';

/** A pod as the node authorizer's graph and NodeRestriction see it. */
export interface BoundPod {
  namespace: string;
  name: string;
  uid: string;
  serviceAccount: string;
  /** spec.nodeName: the node it is bound to. */
  nodeName: string;
  /** Audiences of its projected serviceAccountToken volumes. */
  volumeAudiences?: string[];
}

export interface NodeTokenRequest {
  /** The requesting kubelet's node. */
  node: string;
  namespace: string;
  serviceAccount: string;
  /** boundObjectRef (kind Pod); undefined: a token bound to nothing. */
  boundPod?: { name: string; uid: string };
  audiences: string[];
}

export interface NodeTokenInputs {
  request: NodeTokenRequest;
  /** Every pod the API server holds that may link an SA to a node (those of the request's namespace are enough). */
  pods: BoundPod[];
  /** RBAC grants of request-serviceaccounts-token-audience to system:nodes. */
  grants: AudienceGrant[];
  /** ServiceAccountNodeAudienceRestriction in kube-apiserver (the version table's default, or the spec's gate). */
  audienceRestriction: boolean;
  /** The API server's row of the version table says how it words an audience refusal. */
  audienceRefusal: KubeBehaviour['audienceRefusalWording'];
}

export type NodeTokenStage = 'node authorizer' | 'NodeRestriction';

export interface NodeTokenDecision {
  issued: boolean;
  /** HTTP status: 201 issued, 403 Forbidden, 404 the bound pod is gone. */
  status: 201 | 403 | 404;
  /** Who refused (undefined when issued). */
  refusedBy?: NodeTokenStage;
  /** The words of the refusal the API server's message carries (its reason, from the source above). */
  says?: string;
  because: string;
}

/** The node authorizer's reason when the graph has no path from the SA to the node. */
export const noRelationship = (node: string): string => `no relationship found between node '${node}' and this object`;
export const OTHER_NODE = 'node requested token bound to a pod scheduled on a different node';
export const NOT_BOUND_TO_POD = 'node requested token not bound to a pod';
export const NO_POD_UID = 'node requested token with a pod binding without a uid';
export const ONE_AUDIENCE = 'node may only request 0 or 1 audiences';
export const audienceNotAuthorized = (
  node: string,
  audience: string,
  wording: KubeBehaviour['audienceRefusalWording'],
): string =>
  wording === 'pod-spec-volume'
    ? `audience "${audience}" not found in pod spec volume, system:node:${node} is not authorized to request tokens for this audience`
    : `system:node:${node} is not authorized to request tokens for audience "${audience}"`;
/** The words every audience refusal of this wording carries, whatever the node and audience: what to find in a kubelet log. */
export const audienceRefusalWords = (wording: KubeBehaviour['audienceRefusalWording']): string =>
  wording === 'pod-spec-volume'
    ? 'is not authorized to request tokens for this audience'
    : 'is not authorized to request tokens for audience';

/** Whether the API server issues the token the node asks for, and if not, who refuses it with which words. */
export function nodeMayRequestToken(i: NodeTokenInputs): NodeTokenDecision {
  const r = i.request;
  const sa = `${r.namespace}/${r.serviceAccount}`;
  const refused = (stage: NodeTokenStage, says: string, because: string, status: 403 | 404 = 403) => ({
    issued: false,
    status,
    refusedBy: stage,
    says,
    because,
  });

  const linking = i.pods.find(
    (p) => p.namespace === r.namespace && p.serviceAccount === r.serviceAccount && p.nodeName === r.node,
  );
  if (!linking)
    return refused(
      'node authorizer',
      noRelationship(r.node),
      `node authorizer: no pod of SA ${sa} is bound to node ${r.node}, so the graph has no path SA → pod → node; ` +
        'RBAC grants nodes no create on serviceaccounts/token: Forbidden',
    );
  const steps = [`node authorizer: pod ${r.namespace}/${linking.name} of SA ${sa} is bound to node ${r.node}`];
  const refusedHere = (says: string, why: string, status: 403 | 404 = 403) =>
    refused('NodeRestriction', says, [...steps, `NodeRestriction: ${why}`].join('; '), status);

  if (!r.boundPod?.name) return refusedHere(NOT_BOUND_TO_POD, 'the token is not bound to a pod');
  if (!r.boundPod.uid) return refusedHere(NO_POD_UID, 'the pod binding has no uid');
  const pod = i.pods.find((p) => p.namespace === r.namespace && p.name === r.boundPod!.name);
  if (!pod)
    return refusedHere(
      `pods "${r.boundPod.name}" not found`,
      `the bound pod ${r.namespace}/${r.boundPod.name} does not exist`,
      404,
    );
  if (pod.uid !== r.boundPod.uid)
    return refusedHere('does not match the UID in record', `the bound pod's UID is not ${r.boundPod.uid}`);
  if (pod.nodeName !== r.node)
    return refusedHere(
      OTHER_NODE,
      `the bound pod ${r.namespace}/${pod.name} is on node ${pod.nodeName}, not ${r.node}`,
    );
  steps.push(`NodeRestriction: the bound pod ${r.namespace}/${pod.name} is on node ${r.node}`);

  if (i.audienceRestriction) {
    if (r.audiences.length > 1) return refusedHere(ONE_AUDIENCE, `${r.audiences.length} audiences asked for`);
    const audience = r.audiences[0] ?? '';
    if ((pod.volumeAudiences ?? []).includes(audience))
      steps.push(`audience "${audience}" is named by a projected token volume of the pod`);
    else {
      const grant = audienceAllowed(i.grants, audience, r.namespace, r.serviceAccount);
      if (!grant)
        return refusedHere(
          audienceNotAuthorized(r.node, audience, i.audienceRefusal),
          `no RBAC grant of request-serviceaccounts-token-audience on "${audience}" for SA ${sa}`,
        );
      steps.push(
        `audience "${audience}" granted by ${grant.namespace ? `a Role in ${grant.namespace}` : 'a ClusterRole'}` +
          `${grant.serviceAccounts ? ` naming ${grant.serviceAccounts.join(', ')}` : ''}`,
      );
    }
  }
  return { issued: true, status: 201, because: [...steps, 'token issued'].join('; ') };
}
