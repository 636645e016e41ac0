// The API server's rules for a kubelet's TokenRequest, one per test, in the
// order node_authorizer.go and NodeRestriction (admission.go) apply them.
import { describe, expect, test } from '@jest/globals';
import { behaviourFor } from '../versions/table.ts';
import {
  audienceNotAuthorized,
  audienceRefusalWords,
  NO_POD_UID,
  nodeMayRequestToken,
  noRelationship,
  NOT_BOUND_TO_POD,
  ONE_AUDIENCE,
  OTHER_NODE,
  type BoundPod,
  type NodeTokenInputs,
  type NodeTokenRequest,
} from './node-token-request.ts';

const AUD = 'registry.example';
const web: BoundPod = { namespace: 'ns', name: 'web', uid: 'uid-web', serviceAccount: 'app', nodeName: 'node-a' };
const ask = (o: Partial<NodeTokenRequest> = {}): NodeTokenRequest => ({
  node: 'node-a',
  namespace: 'ns',
  serviceAccount: 'app',
  boundPod: { name: 'web', uid: 'uid-web' },
  audiences: [AUD],
  ...o,
});
const decide = (request: NodeTokenRequest, o: Partial<Omit<NodeTokenInputs, 'request'>> = {}) =>
  nodeMayRequestToken({
    request,
    pods: [web],
    grants: [{ audience: AUD }],
    audienceRestriction: true,
    audienceRefusal: 'audience',
    ...o,
  });

describe('nodeMayRequestToken (node_authorizer.go authorizeCreateToken, noderestriction admitServiceAccount)', () => {
  test("the pod's own node, audience granted: the token is issued (201)", () => {
    const d = decide(ask());
    expect(d).toMatchObject({ issued: true, status: 201 });
    expect(d.refusedBy).toBeUndefined();
    expect(d.because).toMatch(/bound to node node-a.*granted by a ClusterRole.*token issued/);
  });

  test('another node with no pod of the SA: the node authorizer has no path, RBAC none: 403', () => {
    expect(decide(ask({ node: 'node-b' }))).toMatchObject({
      issued: false,
      status: 403,
      refusedBy: 'node authorizer',
      says: noRelationship('node-b'),
    });
  });

  test('a pod of another SA on the node does not link this SA to it', () => {
    const other = { ...web, name: 'other', uid: 'uid-other', serviceAccount: 'someone', nodeName: 'node-b' };
    expect(decide(ask({ node: 'node-b' }), { pods: [web, other] }).refusedBy).toBe('node authorizer');
  });

  test('another node that runs a pod of the same SA passes the authorizer; NodeRestriction refuses the binding to a pod on another node', () => {
    const sibling = { ...web, name: 'sibling', uid: 'uid-sibling', nodeName: 'node-b' };
    const d = decide(ask({ node: 'node-b' }), { pods: [web, sibling] });
    expect(d).toMatchObject({ issued: false, status: 403, refusedBy: 'NodeRestriction', says: OTHER_NODE });
    expect(d.because).toMatch(/pod ns\/sibling of SA ns\/app is bound to node node-b/);
  });

  test('the node-B refusal holds even where the audience is granted to every SA and pod-named by a volume', () => {
    const sibling = { ...web, name: 'sibling', uid: 'uid-sibling', nodeName: 'node-b', volumeAudiences: [AUD] };
    expect(decide(ask({ node: 'node-b' }), { pods: [{ ...web, volumeAudiences: [AUD] }, sibling] }).says).toBe(
      OTHER_NODE,
    );
  });

  test('the pod binding: none, no uid, a pod that is gone (404), a stale uid', () => {
    expect(decide(ask({ boundPod: undefined })).says).toBe(NOT_BOUND_TO_POD);
    expect(decide(ask({ boundPod: { name: 'web', uid: '' } })).says).toBe(NO_POD_UID);
    expect(decide(ask({ boundPod: { name: 'gone', uid: 'x' } }))).toMatchObject({
      status: 404,
      refusedBy: 'NodeRestriction',
      says: 'pods "gone" not found',
    });
    expect(decide(ask({ boundPod: { name: 'web', uid: 'old' } })).refusedBy).toBe('NodeRestriction');
  });

  test("the pod's own node still needs the audience: without a grant NodeRestriction refuses it", () => {
    expect(decide(ask(), { grants: [] })).toMatchObject({
      issued: false,
      status: 403,
      refusedBy: 'NodeRestriction',
      says: audienceNotAuthorized('node-a', AUD, 'audience'),
    });
    // A grant for other SAs (resourceNames) or another namespace (a Role) is no grant.
    expect(decide(ask(), { grants: [{ audience: AUD, serviceAccounts: ['other'] }] }).issued).toBe(false);
    expect(decide(ask(), { grants: [{ audience: AUD, namespace: 'elsewhere' }] }).issued).toBe(false);
    expect(decide(ask(), { grants: [{ audience: AUD, namespace: 'ns', serviceAccounts: ['app'] }] }).issued).toBe(true);
  });

  test("the refusal's words are the API server's version's (k/k PR #139046 reworded them in 1.37)", () => {
    const v136 = behaviourFor('v1.36.5').audienceRefusalWording;
    const v137 = behaviourFor('v1.37.1').audienceRefusalWording;
    expect(decide(ask(), { grants: [], audienceRefusal: v136 }).says).toBe(
      `audience "${AUD}" not found in pod spec volume, system:node:node-a is not authorized to request tokens for this audience`,
    );
    expect(decide(ask(), { grants: [], audienceRefusal: v137 }).says).toBe(
      `system:node:node-a is not authorized to request tokens for audience "${AUD}"`,
    );
    for (const wording of [v136, v137])
      expect(audienceNotAuthorized('n', AUD, wording)).toContain(audienceRefusalWords(wording));
  });

  test('a projected token volume naming the audience stands in for the grant; the gate off skips the audience rule', () => {
    expect(decide(ask(), { grants: [], pods: [{ ...web, volumeAudiences: [AUD] }] }).issued).toBe(true);
    expect(decide(ask(), { grants: [], audienceRestriction: false }).issued).toBe(true);
  });

  test('at most one audience per token', () => {
    expect(decide(ask({ audiences: [AUD, 'other'] })).says).toBe(ONE_AUDIENCE);
  });
});
