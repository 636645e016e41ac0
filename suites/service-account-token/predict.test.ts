// The suite's predictions from its plan, without a cluster: each value below
// is what KEP-4412 and the kubelet's plugin.go say for that pod, so a change
// in the model or the plan that moves a prediction shows here first.
import { describe, expect, test } from '@jest/globals';
import { Redactor } from '../../src/run/kit.ts';
import type { ServiceAccountState } from '../../src/model/service-account-token.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import {
  audienceGrants,
  audiencesFor,
  CACHE_PODS,
  exchangeImage,
  labImage,
  providerPlans,
  ROLE_ANNOTATION,
  SERVICE_ACCOUNTS,
  TEAM_ANNOTATION,
} from './plan.ts';
import {
  exchangeAccepts,
  predictAnnotations,
  predictCache,
  predictRequireServiceAccount,
  predictTokenClaims,
  PullPredictor,
} from './predict.ts';
import {
  predictAudiences,
  predictExchangeAccess,
  predictRevocation,
  predictTokenAsPassword,
} from './predict-access.ts';

const NAMESPACE = 'credprov-sa-test';
const audiences = audiencesFor('test');
const plans = providerPlans(audiences);
const serviceAccounts = new Map<string, ServiceAccountState>(
  Object.entries(SERVICE_ACCOUNTS).map(([name, annotations]) => [name, { name, uid: `uid-${name}`, annotations }]),
);
const predictor = (kubeVersion = 'v1.37.1') =>
  new PullPredictor({
    behaviour: behaviourFor(kubeVersion),
    apiServerBehaviour: behaviourFor(kubeVersion),
    gates: {},
    grants: audienceGrants(audiences, NAMESPACE),
    namespace: NAMESPACE,
    serviceAccounts,
  });

describe('service-account-token predictions', () => {
  test('the token: for the main audience, bound to the pod and node, one hour, issuer from discovery; the pull succeeds', () => {
    const node = { name: 'n', uid: 'n-uid' };
    const p = predictTokenClaims(predictor(), plans, {
      audience: audiences.main,
      issuer: 'https://issuer.test',
      podUid: 'pod-uid',
      node,
    });
    expect(p.value).toEqual({
      invoked: true,
      tokenPresent: true,
      pull: 'success',
      signature: 'verified against /openid/v1/jwks',
      iss: 'https://issuer.test',
      aud: [audiences.main],
      sub: `system:serviceaccount:${NAMESPACE}:claims`,
      kubernetes: {
        namespace: NAMESPACE,
        serviceaccount: { name: 'claims', uid: 'uid-claims' },
        pod: { name: 'claims', uid: 'pod-uid' },
        node,
      },
      lifetimeSeconds: 3600,
    });
    expect(p.model).toMatch(/\+ claims\.go$/);
  });

  test('annotations: the required key and the optional key present are passed, nothing else; without the required key no exec', () => {
    const { annotated, missingRequired } = predictAnnotations(predictor(), plans);
    const passed = { [ROLE_ANNOTATION]: 'puller', [TEAM_ANNOTATION]: 'blue' };
    expect(annotated.value).toEqual({ invoked: true, tokenPresent: true, annotations: passed, pull: 'success' });
    expect(missingRequired.value).toEqual({
      invoked: false,
      tokenPresent: false,
      annotations: undefined,
      pull: 'failure',
    });
    expect(missingRequired.because).toMatch(/required annotation credprov\.test\/role missing on SA unannotated/);
  });

  test("requireServiceAccount: a static pod is skipped when true, exec'd without a token when false; the API pod gets a token either way", () => {
    const required = predictRequireServiceAccount(predictor(), plans.requiredServiceAccount, 'req', true);
    const optional = predictRequireServiceAccount(predictor(), plans.optionalServiceAccount, 'opt', true);
    const withToken = { invoked: true, tokenPresent: true, annotations: {}, pull: 'success' };
    const skipped = { invoked: false, tokenPresent: false, annotations: undefined, pull: 'failure' };
    expect(required.value).toEqual({ apiPod: withToken, staticPod: skipped });
    expect(optional.value).toEqual({
      apiPod: withToken,
      staticPod: { invoked: true, tokenPresent: false, annotations: {}, pull: 'success' },
    });
    expect(required.because).toMatch(/^API pod: .*; static pod: the pod has no service account name/);
  });

  test('requireServiceAccount without a static pod (no kubeletFiles): the API pod only', () => {
    const p = predictRequireServiceAccount(predictor(), plans.requiredServiceAccount, 'req', false);
    expect(Object.keys(p.value)).toEqual(['apiPod']);
    expect(p.because).not.toMatch(/static pod/);
  });

  test('cacheType ServiceAccount: one exec per SA; cacheType Token: one exec per pod (per token)', () => {
    const pods = predictor();
    const bySa = predictCache(pods, plans.cacheByServiceAccount, CACHE_PODS.serviceAccount);
    const byToken = predictCache(pods, plans.cacheByToken, CACHE_PODS.token);
    expect(bySa.value).toEqual({
      'csa-1 (SA cache-1, two pulls)': { execs: 1, pull: 'success' },
      'csa-2 (SA cache-1)': { execs: 0, pull: 'success' },
      'csa-3 (SA cache-2)': { execs: 1, pull: 'success' },
    });
    expect(byToken.value).toEqual({
      'ctok-1 (SA tok-1, two pulls)': { execs: 1, pull: 'success' },
      'ctok-2 (SA tok-1)': { execs: 1, pull: 'success' },
    });
    expect(bySa.because).toMatch(
      /^csa-1 \(SA cache-1, two pulls\): no cache entry for this SA: invoked, stored .* \| cache hit .*same SA/,
    );
  });

  test('audiences: no grant → the TokenRequest is denied and nothing runs; resourceNames admits only named-yes', () => {
    const { denied, resourceNames } = predictAudiences(predictor(), plans);
    expect(denied.value).toEqual({ tokenDenied: true, invoked: false, pull: 'failure' });
    expect(resourceNames.value).toEqual({
      'named-yes': { tokenDenied: false, invoked: true, pull: 'success' },
      'named-no': { tokenDenied: true, invoked: false, pull: 'failure' },
    });
    expect(resourceNames.because).toMatch(/^named-yes: .*naming named-yes.*; named-no: NodeRestriction/);
  });

  test('the token as the password: refused with cacheType ServiceAccount from 1.34, allowed with cacheType Token', () => {
    const p = predictTokenAsPassword(predictor(), plans);
    expect(p.value).toEqual({
      serviceAccountCacheType: { invoked: true, responseRefused: true, pull: 'failure' },
      tokenCacheType: { invoked: true, responseRefused: false, pull: 'success' },
    });
    expect(p.model).toMatch(/rejectsTokenAsPassword: true for 1\.37\)$/);
    expect(predictTokenAsPassword(predictor('v1.33.0'), plans).value.serviceAccountCacheType.responseRefused).toBe(
      false,
    );
  });

  test('its step names are no credential names: the report redacts nothing in the prediction', () => {
    // A key ending in "Token" once made the redactor learn "success" as a secret and hide it in the whole report.
    const p = predictTokenAsPassword(predictor(), plans);
    expect(new Redactor().value(p.value)).toEqual(p.value);
  });

  test('the exchange: team-a pulls team-a/app but not team-b/app, team-c pulls team-c/app; every token is handed on', () => {
    expect(exchangeAccepts(NAMESPACE, 'team-a', exchangeImage(plans.exchange, 'team-a'))).toBe(true);
    expect(exchangeAccepts(NAMESPACE, 'team-a', exchangeImage(plans.exchange, 'team-b'))).toBe(false);
    expect(predictExchangeAccess(predictor(), plans.exchange).value).toEqual({
      'xa-own (SA team-a → team-a/app)': { invoked: true, tokenValidated: true, pull: 'success' },
      'xa-other (SA team-a → team-b/app)': { invoked: true, tokenValidated: true, pull: 'failure' },
      'xc-own (SA team-c → team-c/app)': { invoked: true, tokenValidated: true, pull: 'success' },
    });
  });

  test('revocation: deleting the pod or the SA leaves the signature valid and makes TokenReview refuse; an expired token fails both', () => {
    expect(predictRevocation({ ownToken: false, teamCToken: false }).value).toEqual({
      'xa-own token, pod exists': { signature: 'valid', tokenReview: 'authenticated' },
      'xa-own token, pod deleted': { signature: 'valid', tokenReview: 'refused' },
      'xc-own token, SA team-c deleted': { signature: 'valid', tokenReview: 'refused' },
    });
    const expired = predictRevocation({ ownToken: true, teamCToken: false }).value;
    expect(expired['xa-own token, pod exists']).toEqual({ signature: 'invalid', tokenReview: 'refused' });
  });

  test('the plan: every provider on its own host, images on the lab registry but for the two exchange providers', () => {
    const hosts = Object.values(plans).map((p) => labImage(p).split('/')[0]);
    expect(new Set(hosts).size).toBe(hosts.length);
    expect(
      Object.values(plans)
        .filter((p) => p.registry === 'exchange')
        .map((p) => p.name),
    ).toEqual(['sa-echo', 'sa-exchange']);
  });
});
