// The cache suite: how the kubelet caches a credential provider's answers
// (cacheKeyType, cacheDuration vs defaultCacheDuration, expiry, recovery
// after a password rotation, singleflight). One provider per case, each
// matching its own hosts (plan.ts), so every case runs under one kubelet
// config and side by side, each in a namespace of its own.
//
// Every case states the cache model's prediction (predict.ts, over
// src/model/credential-cache.ts) from the same plan its pods then follow:
// which image, when (relative to the first exec's answer), and what the fake
// answers. After the pods ran, the model is replayed at the times the pods
// were really created: if that changes the prediction, the schedule slipped
// and the case is a harness failure, not a kubelet verdict.
import { runCases, type Case, type PreparedSuite, type Suite, type SuiteSetup } from '../../src/run/kit.ts';
import {
  CACHE_CHECKS,
  DURATION_DEFAULT,
  DURATION_ZERO_DEFAULT,
  DURATION_ZERO_RESPONSE,
  EXPIRY,
  KEY_GLOBAL,
  KEY_IMAGE,
  KEY_REGISTRY,
  ROTATION,
  SINGLEFLIGHT,
} from './checks.ts';
import { routeHosts, startCacheLab, type CacheLab } from './lab.ts';
import { PLANS } from './plan.ts';
import { rotationCase } from './rotation.ts';
import { expiryCase, keyCase, zeroCase } from './sequences.ts';
import { singleflightCase } from './singleflight.ts';

const cases = (lab: CacheLab): Case[] => [
  keyCase(lab, KEY_IMAGE, PLANS.image),
  keyCase(lab, KEY_REGISTRY, PLANS.registry),
  keyCase(lab, KEY_GLOBAL, PLANS.global),
  expiryCase(lab, DURATION_DEFAULT, PLANS.defaultDuration),
  zeroCase(lab, DURATION_ZERO_RESPONSE, PLANS.zeroResponse),
  zeroCase(lab, DURATION_ZERO_DEFAULT, PLANS.zeroDefault),
  expiryCase(lab, EXPIRY, PLANS.expiry),
  rotationCase(lab, ROTATION, PLANS.rotation),
  singleflightCase(lab, SINGLEFLIGHT, PLANS.singleflight),
];

export const cacheSuite: Suite = {
  name: 'cache',
  summary:
    "the kubelet's credential cache: cacheKeyType Image/Registry/Global, cacheDuration vs defaultCacheDuration and 0s, " +
    'expiry, recovery after a password rotation, singleflight for concurrent pulls',
  checks: CACHE_CHECKS,
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const lab = await startCacheLab(ctx);
    return {
      needs: ['installPlugins', 'hostRegistries'],
      spec: lab.fleet.spec,
      async run(run) {
        await routeHosts(run, lab);
        // All at once: every case's timing is planned from its own first exec, and the key cases wait 20s between pulls.
        return runCases(run, cases(lab));
      },
    };
  },
};
