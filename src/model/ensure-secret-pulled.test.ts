import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import {
  afterRestart,
  allowlistMatches,
  allowlistPattern,
  credentialHash,
  ensureImageExists,
  mergeCredentials,
  mustPullCounts,
  pruneOnRemoval,
  recordApiVersion,
  recordFileName,
  requiresVerification,
  trimImageTagDigest,
  type EnsureCase,
  type NodeImage,
  type PodCredentials,
  type PodProvider,
  type PodSecret,
} from './ensure-secret-pulled.ts';

const HOST = 'reg.test:5000';
const IMG = `${HOST}/team/app:v1`;
const right = { username: 'u', password: 'p', works: true };
const wrong = { username: 'u', password: 'nope', works: false };
const secret = (name: string, uid: string, a = right): PodSecret => ({ name, uid, auths: { [HOST]: a } });
const pod = (p: Partial<PodCredentials> = {}): PodCredentials => ({
  namespace: 'ns',
  serviceAccount: { name: 'default', uid: 'sa-default' },
  secrets: [],
  ...p,
});
const nodeProvider: PodProvider = { name: 'np', matchImages: [`${HOST}/team`], auths: { [HOST]: right } };
const saProvider: PodProvider = { ...nodeProvider, name: 'sa', serviceAccountMode: true };
const absent: NodeImage = { present: false, imageRef: 'sha256:cfg' };
const preloaded: NodeImage = { present: true, imageRef: 'sha256:cfg' };

/** The node after a first pod pulled the image with `first`. */
function pulledWith(first: PodCredentials): NodeImage {
  const p = ensureImageExists({
    image: IMG,
    pullPolicy: 'IfNotPresent',
    node: absent,
    pod: first,
    policy: 'AlwaysVerify',
  });
  expect(p.outcome).toBe('Running');
  return p.node;
}
const second = (node: NodeImage, c: Partial<EnsureCase>) =>
  ensureImageExists({ image: IMG, pullPolicy: 'IfNotPresent', node, pod: pod(), ...c });

describe('KEP-2535 model: policies and allowlist', () => {
  test('the four policies, by provenance', () => {
    expect([true, false].map((k) => requiresVerification('NeverVerify', IMG, k))).toEqual([false, false]);
    expect([true, false].map((k) => requiresVerification('NeverVerifyPreloadedImages', IMG, k))).toEqual([true, false]);
    expect([true, false].map((k) => requiresVerification('AlwaysVerify', IMG, k))).toEqual([true, true]);
    expect(
      [true, false].map((k) => requiresVerification('NeverVerifyAllowlistedImages', IMG, k, [`${HOST}/team/*`])),
    ).toEqual([false, false]);
    expect(
      [true, false].map((k) => requiresVerification('NeverVerifyAllowlistedImages', IMG, k, [`${HOST}/other/*`])),
    ).toEqual([true, true]);
  });

  test('allowlist patterns as image_pull_policies_test.go validates them', () => {
    for (const bad of [
      'image.repo/pokus*/imagename',
      'image.repo/pokus*',
      'image.repo/*/imagename',
      '/*',
      'image.repo/',
      '',
      '*',
      'test.io/test/image1:tagged',
      'test.io/test/image1 ',
      'test.io/test/image1@sha256:38a8906435c4dd5f4258899d46621bfd8eea3ad6ff494ee3c2f17ef0321625bd',
    ]) {
      expect(() => allowlistPattern(bad)).toThrow();
    }
    expect(allowlistPattern('test.io/*')).toEqual({ pattern: 'test.io/', wildcard: true });
    expect(allowlistMatches(['test.io/test/test-image'], 'test.io/test/test-image:tag')).toBe(true);
    expect(allowlistMatches(['test.io/test/*'], 'test.io/test/test-image:tag')).toBe(true);
    expect(allowlistMatches(['different.repo/test/*'], 'test.io/test/test-image:tag')).toBe(false);
    // Familiar names are not normalised: docker.io/library/ubuntu does not match ubuntu.
    expect(allowlistMatches(['docker.io/library/ubuntu'], 'ubuntu:tagged')).toBe(false);
    expect(allowlistMatches(['ubuntu'], 'ubuntu:tagged')).toBe(true);
  });

  test('image names lose tag and digest but are not normalised', () => {
    expect(trimImageTagDigest('reg.test:5000/a/b:v1')).toBe('reg.test:5000/a/b');
    expect(trimImageTagDigest(`busybox@sha256:${'a'.repeat(64)}`)).toBe('busybox');
    expect(trimImageTagDigest('busybox')).toBe('busybox');
  });
});

describe('KEP-2535 model: EnsureImageExists', () => {
  test('a first pull with a secret records the secret; the same secret is then found, no lookup needed beyond it', () => {
    const node = pulledWith(pod({ secrets: [secret('right', 'u1')] }));
    expect(node.record?.credentialMapping[`${HOST}/team/app`]).toEqual({
      kubernetesSecrets: [{ uid: 'u1', namespace: 'ns', name: 'right', credentialHash: credentialHash(right) }],
    });
    const p = second(node, {
      policy: 'AlwaysVerify',
      pullPolicy: 'Never',
      pod: pod({ secrets: [secret('right', 'u1')] }),
    });
    expect(p).toMatchObject({
      outcome: 'Running',
      check: 'credentialRecordFound',
      pull: false,
      lookedUp: true,
      event: {
        kind: 'present-accessible',
        message: `Container image "${IMG}" already present on machine and can be accessed by the pod`,
      },
    });
  });

  test('another secret with the same credentials matches by hash and is added to the record', () => {
    const node = pulledWith(pod({ secrets: [secret('right', 'u1')] }));
    const p = second(node, { policy: 'NeverVerifyPreloadedImages', pod: pod({ secrets: [secret('copy', 'u2')] }) });
    expect(p).toMatchObject({ outcome: 'Running', check: 'credentialRecordFound', recordWritten: true });
    expect(p.node.record?.credentialMapping[`${HOST}/team/app`]?.kubernetesSecrets?.map((s) => s.name)).toEqual([
      'copy',
      'right',
    ]);
  });

  test('wrong secret or no secret: Never hides the image, IfNotPresent pulls and fails', () => {
    const node = pulledWith(pod({ secrets: [secret('right', 'u1')] }));
    expect(
      second(node, {
        policy: 'AlwaysVerify',
        pullPolicy: 'Never',
        pod: pod({ secrets: [secret('wrong', 'u3', wrong)] }),
      }),
    ).toMatchObject({
      outcome: 'ErrImageNeverPull',
      check: 'mustAuthenticate',
      pull: false,
      event: {
        reason: 'ErrImageNeverPull',
        message: `Container image "${IMG}" is not present with pull policy of Never`,
      },
    });
    expect(second(node, { policy: 'AlwaysVerify', pullPolicy: 'IfNotPresent' })).toMatchObject({
      outcome: 'ErrImagePull',
      check: 'mustAuthenticate',
      pull: true,
      intentWritten: true,
      recordWritten: false,
    });
    expect(second(node, { policy: 'NeverVerify', pullPolicy: 'Never' })).toMatchObject({
      outcome: 'Running',
      check: 'credentialPolicyAllowed',
      lookedUp: false,
    });
  });

  test('preloaded images: allowed by NeverVerifyPreloadedImages without a lookup; AlwaysVerify must authenticate before any lookup', () => {
    expect(second(preloaded, { policy: undefined, pullPolicy: 'Never' })).toMatchObject({
      outcome: 'Running',
      check: 'credentialPolicyAllowed',
      lookedUp: false,
    });
    const never = second(preloaded, {
      policy: 'AlwaysVerify',
      pullPolicy: 'Never',
      pod: pod({ providers: [nodeProvider] }),
    });
    expect(never).toMatchObject({
      outcome: 'ErrImageNeverPull',
      check: 'mustAuthenticate',
      lookedUp: false,
      providersInvoked: [],
    });
    const ifnp = second(preloaded, { policy: 'AlwaysVerify', pod: pod({ providers: [nodeProvider] }) });
    expect(ifnp).toMatchObject({
      outcome: 'Running',
      pull: true,
      lookedUp: true,
      providersInvoked: ['np'],
      recordCreated: true,
    });
    expect(ifnp.node.record?.credentialMapping[`${HOST}/team/app`]).toEqual({ nodePodsAccessible: true });
  });

  test("a non-SA provider is exec'd for a present image when the record names secrets, its credential never matches, and a re-pull records nodePodsAccessible", () => {
    const node = pulledWith(pod({ secrets: [secret('right', 'u1')], providers: [nodeProvider] }));
    expect(node.record?.credentialMapping[`${HOST}/team/app`]?.kubernetesSecrets?.[0]?.name).toBe('right');
    const never = second(node, {
      policy: 'AlwaysVerify',
      pullPolicy: 'Never',
      pod: pod({ providers: [nodeProvider] }),
    });
    expect(never).toMatchObject({ outcome: 'ErrImageNeverPull', lookedUp: true, providersInvoked: ['np'] });
    const ifnp = second(node, { policy: 'AlwaysVerify', pod: pod({ providers: [nodeProvider] }) });
    expect(ifnp).toMatchObject({ outcome: 'Running', pull: true, recordWritten: true, recordCreated: false });
    expect(ifnp.node.record?.credentialMapping[`${HOST}/team/app`]).toEqual({ nodePodsAccessible: true });
    // nodePodsAccessible: anyone may use it, no lookup.
    expect(
      second(ifnp.node, { policy: 'AlwaysVerify', pullPolicy: 'Never', pod: pod({ providers: [nodeProvider] }) }),
    ).toMatchObject({ outcome: 'Running', check: 'credentialRecordFound', lookedUp: false });
  });

  test('service-account mode: the same SA is found, another SA pulls and is merged', () => {
    const a = pod({ serviceAccount: { name: 'a', uid: 'ua' }, providers: [saProvider] });
    const b = pod({ serviceAccount: { name: 'b', uid: 'ub' }, providers: [saProvider] });
    const node = pulledWith(a);
    expect(node.record?.credentialMapping[`${HOST}/team/app`]).toEqual({
      kubernetesServiceAccounts: [{ uid: 'ua', namespace: 'ns', name: 'a' }],
    });
    expect(second(node, { policy: 'AlwaysVerify', pullPolicy: 'Never', pod: a })).toMatchObject({
      outcome: 'Running',
      check: 'credentialRecordFound',
      providersInvoked: ['sa'],
    });
    expect(second(node, { policy: 'AlwaysVerify', pullPolicy: 'Never', pod: b })).toMatchObject({
      outcome: 'ErrImageNeverPull',
      check: 'mustAuthenticate',
      providersInvoked: ['sa'],
    });
    const ifnp = second(node, { policy: 'AlwaysVerify', pod: b });
    expect(
      ifnp.node.record?.credentialMapping[`${HOST}/team/app`]?.kubernetesServiceAccounts?.map((s) => s.name),
    ).toEqual(['a', 'b']);
  });

  test('an intent alone makes an image "pulled by the kubelet"; the gate off skips every check', () => {
    expect(second({ ...preloaded, intent: true }, { pullPolicy: 'Never' })).toMatchObject({
      outcome: 'ErrImageNeverPull',
      check: 'mustAuthenticate',
    });
    expect(second(preloaded, { policy: 'AlwaysVerify', pullPolicy: 'Never', gateEnabled: false })).toMatchObject({
      outcome: 'Running',
      check: undefined,
      event: { kind: 'present' },
    });
  });

  test('Always pulls without a check; an absent image with Never is refused without a lookup', () => {
    expect(
      second(preloaded, {
        policy: 'NeverVerify',
        pullPolicy: 'Always',
        pod: pod({ secrets: [secret('right', 'u1')] }),
      }),
    ).toMatchObject({ pull: true, check: undefined, outcome: 'Running' });
    expect(second(absent, { pullPolicy: 'Never', pod: pod({ providers: [nodeProvider] }) })).toMatchObject({
      outcome: 'ErrImageNeverPull',
      check: undefined,
      lookedUp: false,
    });
  });

  test('mustPullCounts sums the checks', () => {
    const ps = [
      second(preloaded, { policy: 'NeverVerify' }),
      second(preloaded, { policy: 'AlwaysVerify', pullPolicy: 'Never' }),
      second(absent, {}),
    ];
    expect(mustPullCounts(ps)).toEqual({
      credentialPolicyAllowed: 1,
      credentialRecordFound: 0,
      mustAuthenticate: 1,
      error: 0,
    });
  });
});

describe('KEP-2535 model: records', () => {
  test("credential hash: sha256 of Go's json.Marshal(AuthConfig)", () => {
    expect(credentialHash({ username: 'u', password: 'p' })).toBe(
      createHash('sha256').update('{"username":"u","password":"p"}').digest('hex'),
    );
    expect(credentialHash({ username: 'a<b', password: 'p' })).toBe(
      createHash('sha256').update('{"username":"a\\u003cb","password":"p"}').digest('hex'),
    );
  });

  test('file names and versions', () => {
    expect(recordFileName('sha256:abc')).toBe(`sha256-${createHash('sha256').update('sha256:abc').digest('hex')}`);
    expect(recordApiVersion(34)).toBe('kubelet.config.k8s.io/v1alpha1');
    expect(recordApiVersion(37)).toBe('kubelet.config.k8s.io/v1beta1');
  });

  test('merging: nodePodsAccessible wins and clears; secrets merge by coordinates, sorted', () => {
    const s = (name: string, hash = 'h') => ({ uid: name, namespace: 'ns', name, credentialHash: hash });
    expect(mergeCredentials({ kubernetesSecrets: [s('b')] }, { nodePodsAccessible: true })).toEqual({
      nodePodsAccessible: true,
    });
    expect(mergeCredentials({ nodePodsAccessible: true }, { kubernetesSecrets: [s('a')] })).toBeUndefined();
    expect(mergeCredentials({ kubernetesSecrets: [s('b')] }, { kubernetesSecrets: [s('a')] })).toEqual({
      kubernetesSecrets: [s('a'), s('b')],
    });
    expect(mergeCredentials({ kubernetesSecrets: [s('b')] }, { kubernetesSecrets: [s('b')] })).toBeUndefined();
    expect(mergeCredentials({ kubernetesSecrets: [s('b')] }, { kubernetesSecrets: [s('b', 'h2')] })).toEqual({
      kubernetesSecrets: [s('b', 'h2')],
    });
  });

  test('restart: current-version records untouched, gauges 0 until a write; removal is never pruned without image GC', () => {
    expect(
      afterRestart({ kubeletMinor: 37, recordVersions: ['kubelet.config.k8s.io/v1beta1'], intents: [] }),
    ).toMatchObject({ rewritten: 0, intentsConverted: 0, gauges: { pulledRecords: 0, pullIntents: 0 } });
    expect(
      afterRestart({
        kubeletMinor: 37,
        recordVersions: ['kubelet.config.k8s.io/v1alpha1'],
        intents: [{ image: 'x', imagePresent: true }],
      }),
    ).toMatchObject({ rewritten: 1, intentsConverted: 1 });
    expect(pruneOnRemoval({ imageGCHighThresholdPercent: 100 })).toMatchObject({
      afterWait: 'kept',
      afterRestart: 'kept',
    });
    expect(pruneOnRemoval({ imageGCHighThresholdPercent: 100 }).because).toMatch(/does not even start/);
    expect(pruneOnRemoval({}).because).not.toMatch(/does not even start/);
  });
});
