// Differential tests against the kubelet's own code (kubelet-probe, built
// against the k8s.io/kubernetes version credprov builds), on generated inputs:
//   (b) a plugin's answer: credprov's hermetic decode (decodeResponse), its
//       token-as-password rule and its keyring model against the kubelet's
//       provide() and keyring Lookup for the image;
//   (c) matching: matchImages and auth keys (URLsMatchStr, isImageAllowed,
//       BasicDockerKeyring) and image parsing (ParseImageName).
// Runs and seed: see run.ts. The probe is built by scripts/test.sh (or
// ensureKubeletProbe); without it the tests skip, and fail under CI=true.
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import fc from 'fast-check';
import { parseImageReference } from '../matching/image.ts';
import { authKeyToKeyringKey, matchPattern } from '../matching/url.ts';
import { kubeletAnswerVerdict, stepOf } from '../model/kubelet-answer.ts';
import { keyringLookup } from '../model/pull-credentials.ts';
import { newestBehaviour } from '../versions/table.ts';
import { testIf } from '../testing/prerequisites.ts';
import { imageRef, kubeletAnswer, pattern, repositoryFor, type GeneratedAnswer } from './arbitraries.ts';
import { ensureKubeletProbe, startKubeletProbe, type KubeletAnswer, type KubeletProbe } from './kubelet-probe.ts';
import { differential } from './run.ts';

const binary = await ensureKubeletProbe({ cachedOnly: true });
const it = testIf(
  binary
    ? { ok: true }
    : {
        ok: false,
        reason:
          'the kubelet probe is not built: run scripts/test.sh, or node -e \'import("./src/differential/kubelet-probe.ts").then((k) => k.ensureKubeletProbe())\' (needs Go and the Go module proxy)',
      },
);

let probe: KubeletProbe;
beforeAll(async () => {
  if (binary) probe = await startKubeletProbe(binary.path);
});
afterAll(async () => {
  await probe?.close();
});

const SA = { Namespace: 'ns', Name: 'sa', UID: 'sa-uid', Annotations: {} };

/** credprov's prediction of what the kubelet makes of a generated answer. */
function predict(c: GeneratedAnswer): { allowed: boolean; refused?: string; users: string[]; ordered: boolean } {
  const allowed = c.matchImages.some((m) => matchPattern(m, c.image).match);
  if (!allowed) return { allowed, users: [], ordered: true };
  const v = kubeletAnswerVerdict(c.stdout, {
    apiVersion: c.apiVersion,
    ...(c.serviceAccount ? { serviceAccountToken: c.serviceAccount.token, cacheType: c.serviceAccount.cacheType } : {}),
    behaviour: newestBehaviour(),
  });
  if (!v.ok) return { allowed, refused: v.step, users: [], ordered: true };
  const entries = Object.entries(v.response.auth ?? {}).flatMap(([key, a]) => {
    const k = authKeyToKeyringKey(key);
    return k === undefined ? [] : [{ source: key, key: k, credential: { username: a.username, works: true } }];
  });
  // Two auth keys of one keyring key come out in Go's map order: only the set is predictable then.
  const ordered = new Set(entries.map((e) => e.key)).size === entries.length;
  return { allowed, users: keyringLookup(entries, c.image).map((e) => e.credential.username), ordered };
}

function compareAnswer(c: GeneratedAnswer, k: KubeletAnswer) {
  const p = predict(c);
  const real = {
    allowed: k.allowed,
    refused: k.provideError ? (stepOf(k.provideError) ?? `other: ${k.provideError}`) : undefined,
    users: k.users,
  };
  if (p.allowed !== real.allowed) return { kind: `matchImages allowed: credprov ${p.allowed}`, detail: { c, real } };
  if (!p.allowed) return undefined;
  if (p.refused !== real.refused)
    return {
      kind: `verdict: credprov ${p.refused ?? 'accepts'}, kubelet ${real.refused ?? 'accepts'}`,
      detail: { c, real: k },
    };
  const same = p.ordered
    ? JSON.stringify(p.users) === JSON.stringify(real.users)
    : JSON.stringify([...p.users].sort()) === JSON.stringify([...real.users].sort());
  if (!same) return { kind: 'keyring users', detail: { c, predicted: p.users, real: real.users } };
  return undefined;
}

describe('differential: credprov against the kubelet’s own code', () => {
  it('(b) a plugin’s answer: decode verdict, token as password, keyring users', async () => {
    const s = await differential(
      'kubelet answers',
      kubeletAnswer,
      async (c) => {
        const k = await probe.answer(
          {
            apiVersion: c.apiVersion,
            matchImages: c.matchImages,
            defaultCacheDuration: '0s',
            ...(c.serviceAccount
              ? {
                  tokenAttributes: {
                    serviceAccountTokenAudience: 'credprov',
                    cacheType: c.serviceAccount.cacheType,
                    requireServiceAccount: true,
                  },
                }
              : {}),
          },
          c.image,
          c.stdout,
          c.serviceAccount ? { ...SA, Token: c.serviceAccount.token } : undefined,
        );
        return compareAnswer(c, k);
      },
      { runs: 3000 },
    );
    expect([...s.disagreements.keys()]).toEqual([]);
  }, 600_000);

  it('(c) matching: URLsMatchStr on matchImages and auth keys', async () => {
    const s = await differential(
      'URLsMatchStr',
      fc.tuple(pattern, repositoryFor()),
      async ([p, target]) => {
        const k = await probe.match(p, target);
        const c = matchPattern(p, target);
        return c.match === k.match
          ? undefined
          : { kind: `match: credprov ${c.match} (${c.reason})`, detail: { p, target, k } };
      },
      { runs: 3000 },
    );
    expect([...s.disagreements.keys()]).toEqual([]);
  }, 600_000);

  it('(c) matching: the keyring of auth keys a response returns, asked for an image', async () => {
    const s = await differential(
      'keyring',
      fc.tuple(fc.uniqueArray(pattern, { maxLength: 4 }), repositoryFor()),
      async ([keys, image]) => {
        const auth = Object.fromEntries(keys.map((k, i) => [k, `u${i}`]));
        const k = await probe.keyring(auth, image);
        const entries = keys.flatMap((key, i) => {
          const kk = authKeyToKeyringKey(key);
          return kk === undefined ? [] : [{ source: key, key: kk, credential: { username: `u${i}`, works: true } }];
        });
        const ordered = new Set(entries.map((e) => e.key)).size === entries.length;
        const users = keyringLookup(entries, image).map((e) => e.credential.username);
        const norm = (u: string[]) => (ordered ? u : [...u].sort());
        return JSON.stringify(norm(users)) === JSON.stringify(norm(k.users))
          ? undefined
          : { kind: 'keyring users', detail: { keys, image, predicted: users, real: k.users } };
      },
      { runs: 3000 },
    );
    expect([...s.disagreements.keys()]).toEqual([]);
  }, 600_000);

  it('(c) image references: ParseImageName', async () => {
    const s = await differential(
      'ParseImageName',
      imageRef,
      async (ref) => {
        const k = await probe.parse(ref);
        const c = parseImageReference(ref);
        if ('error' in c)
          return k.parseError ? undefined : { kind: 'parse: credprov refuses, kubelet takes', detail: { ref, c, k } };
        if (k.parseError) return { kind: 'parse: credprov takes, kubelet refuses', detail: { ref, c, k } };
        const tag = c.tag ?? (c.digest ? '' : 'latest');
        return k.repository === c.repository && k.tag === tag && k.digest === (c.digest ?? '')
          ? undefined
          : { kind: 'parse: parts differ', detail: { ref, c, k } };
      },
      { runs: 3000 },
    );
    expect([...s.disagreements.keys()]).toEqual([]);
  }, 600_000);
});
