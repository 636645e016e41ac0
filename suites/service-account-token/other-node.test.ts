// SA-TOKEN-OTHER-NODE without a cluster: what the model predicts for the
// suite's plan, and the case's verdict (judgeOtherNode, the same call the case
// makes) against a recorded run: it passes with the model's prediction and
// fails, as a disagreement, when the prediction is deliberately wrong.
import { describe, expect, test } from '@jest/globals';
import { Redactor, refusalStage } from '../../src/run/kit.ts';
import { noRelationship, OTHER_NODE } from '../../src/model/node-token-request.ts';
import type { ServiceAccountState } from '../../src/model/service-account-token.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { judgeOtherNode } from './other-node.ts';
import { audienceGrants, audiencesFor, OTHER_NODE_PODS, providerPlans, SERVICE_ACCOUNTS } from './plan.ts';
import { PullPredictor } from './predict.ts';
import { predictOtherNode } from './predict-access.ts';
import type { OtherNodeView } from './views.ts';

const NAMESPACE = 'credprov-sa-test';
const NODES = { a: 'kind-control-plane', b: 'kind-worker' };
const audiences = audiencesFor('test');
const plan = providerPlans(audiences).requiredServiceAccount;
const serviceAccounts = new Map<string, ServiceAccountState>(
  Object.entries(SERVICE_ACCOUNTS).map(([name, annotations]) => [name, { name, uid: `uid-${name}`, annotations }]),
);
const predictor = (o: { grants?: boolean; audienceRestriction?: boolean } = {}) =>
  new PullPredictor({
    behaviour: behaviourFor('v1.37.1'),
    apiServerBehaviour: behaviourFor('v1.37.1'),
    gates: o.audienceRestriction === false ? { apiserver: { ServiceAccountNodeAudienceRestriction: false } } : {},
    grants: o.grants === false ? [] : audienceGrants(audiences, NAMESPACE),
    namespace: NAMESPACE,
    serviceAccounts,
  });
const { own, sibling } = OTHER_NODE_PODS;

/**
 * A run's observation. The refusals are kube-apiserver v1.37.1's own words, as
 * test/e2e/node-token-other-node.e2e.test.ts records them (there with a
 * CA-signed identity of a phantom node B), with this plan's names.
 */
const recorded: OtherNodeView = {
  pluginOnNodeA: { invoked: true, tokenPresent: true, annotations: {}, pull: 'success' },
  nodeA: { status: 201, boundTo: `${own.name} on ${NODES.a}` },
  nodeB: {
    status: 403,
    refusedBy: 'node authorizer',
    says:
      `serviceaccounts "${own.serviceAccount}" is forbidden: User "system:node:${NODES.b}" cannot create resource ` +
      `"serviceaccounts/token" in API group "" in the namespace "${NAMESPACE}": node: ${noRelationship(NODES.b)}`,
  },
  nodeBWithSibling: {
    status: 403,
    refusedBy: 'NodeRestriction',
    says: `serviceaccounts "${own.serviceAccount}" is forbidden: ${OTHER_NODE}`,
  },
};

describe('SA-TOKEN-OTHER-NODE', () => {
  test('the prediction: the plugin on A gets a token; A is issued one bound to the pod on A; B is refused by the node authorizer, then by NodeRestriction', () => {
    const p = predictOtherNode(predictor(), plan, NODES);
    expect(p.value).toEqual({
      pluginOnNodeA: { invoked: true, tokenPresent: true, annotations: {}, pull: 'success' },
      nodeA: { status: 201, boundTo: `${own.name} on ${NODES.a}` },
      nodeB: { status: 403, refusedBy: 'node authorizer', says: noRelationship(NODES.b) },
      nodeBWithSibling: { status: 403, refusedBy: 'NodeRestriction', says: OTHER_NODE },
    });
    expect(p.because).toContain(
      `pod ${NAMESPACE}/${sibling.name} of SA ${NAMESPACE}/${own.serviceAccount} is bound to node ${NODES.b}`,
    );
    // Nothing in it reads as a credential to the report's redactor.
    expect(new Redactor().value(p.value)).toEqual(p.value);
  });

  test("without the audience grant even node A is refused, by NodeRestriction's audience rule, and the plugin is not invoked", () => {
    const p = predictOtherNode(predictor({ grants: false }), plan, NODES);
    expect(p.value.nodeA).toMatchObject({
      status: 403,
      refusedBy: 'NodeRestriction',
      says: expect.stringContaining('not authorized to request tokens for audience'),
    });
    expect(p.value.pluginOnNodeA.invoked).toBe(false);
    // Node B's refusals come first, whatever the audience.
    expect(p.value.nodeB.refusedBy).toBe('node authorizer');
    expect(p.value.nodeBWithSibling.says).toBe(OTHER_NODE);
  });

  test("the verdict on the recorded run: the model's prediction passes", () => {
    const r = judgeOtherNode(predictOtherNode(predictor(), plan, NODES), recorded);
    expect({ status: r.status, agree: r.comparison?.agree }).toEqual({ status: 'passed', agree: true });
    expect(r.message).toMatch(
      /^the kubelet and the API server: plugin on node A: invoked with a token, pull success; node A asks: HTTP 201, token issued/,
    );
  });

  test('a deliberately wrong prediction fails: a model that lets any node have any pod token (node B flipped to issued)', () => {
    const right = predictOtherNode(predictor(), plan, NODES);
    const wrong = { ...right, value: { ...right.value, nodeB: { status: 201, boundTo: `${own.name} on ${NODES.a}` } } };
    const r = judgeOtherNode(wrong, recorded);
    expect({ status: r.status, cause: r.cause, agree: r.comparison?.agree }).toEqual({
      status: 'failed',
      cause: 'subject',
      agree: false,
    });
    expect(r.message).toContain('predicted plugin on node A');
    expect(r.message).toContain('node B asks: HTTP 201, token issued');
    expect(r.message).toContain(`node B asks: HTTP 403, refused by node authorizer`);
  });

  test('a deliberately wrong model input fails too: no audience grant predicts node A refused, and the recorded run disagrees', () => {
    const r = judgeOtherNode(predictOtherNode(predictor({ grants: false }), plan, NODES), recorded);
    expect({ status: r.status, cause: r.cause }).toEqual({ status: 'failed', cause: 'subject' });
  });

  test('the right stage with the wrong words is a disagreement: the message must carry the reason the model names', () => {
    const p = predictOtherNode(predictor(), plan, NODES);
    const reworded = {
      ...recorded,
      nodeBWithSibling: {
        ...recorded.nodeBWithSibling,
        says: 'serviceaccounts "two-nodes" is forbidden: something else',
      },
    };
    expect(judgeOtherNode(p, reworded).status).toBe('failed');
  });

  test("the observed stage comes from the API server's words: the authorization layer's refusal, or admission's", () => {
    expect(refusalStage(recorded.nodeB.says!)).toBe('node authorizer');
    expect(refusalStage(recorded.nodeBWithSibling.says!)).toBe('NodeRestriction');
  });
});
