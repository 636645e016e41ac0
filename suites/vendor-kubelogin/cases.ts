// The vendor-kubelogin cases through real kubectl: each states credprov's
// prediction (predict.ts) for every kubectl call it will make before the first
// one, then runs them and compares the status, the user the API server names,
// the token-endpoint requests the plugin made and which token it printed.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ACCESS_TOKEN,
  CA,
  CLIENT_CREDENTIALS,
  PASSWORD,
  REFRESH,
  REVOKED_REFRESH,
  TOKEN_CACHE,
  WRONG_SECRET,
} from './checks.ts';
import { PAST_EXPIRY_MS, WHOAMI_ARGS, type UserName } from './plan.ts';
import { observedCall, showCall } from './observe.ts';
import { MODEL, predictFor, tokenFor, type CallOutcome } from './predict.ts';
import { attemptEvidence, type Attempt, type Session } from './session.ts';
import { caseOf, judge, sleepUntil, type Case, type Check, type Evidence, type Prediction } from '../../src/run/kit.ts';

/** One kubectl call as `user`; prediction first. */
export const singleCallCase = (s: Session, check: Check, user: UserName): Case =>
  caseOf(check, async (ctx) => {
    const prediction = predictFor(s, user, ctx.clock.now());
    const a = await s.attempt(user, WHOAMI_ARGS);
    return judge(check, {
      prediction,
      observed: observedCall(a),
      actor: 'kubectl → kubectl oidc-login get-token → kube-apiserver',
      show: showCall,
      evidence: attemptEvidence(s.lab, user, [a]),
    });
  });

/** Several calls whose predictions are all made before the first one runs. */
function callsCase(
  s: Session,
  check: Check,
  calls: Array<{ user: UserName; label: string }>,
  plan: (t0: number) => { predictions: Array<Prediction<CallOutcome>>; before?: Array<() => Promise<void>> },
  more?: () => Promise<Evidence[]>,
): Case {
  return caseOf(check, async (ctx) => {
    const t0 = ctx.clock.now();
    const { predictions, before = [] } = plan(t0);
    const attempts: Attempt[] = [];
    for (const [i, c] of calls.entries()) {
      await before[i]?.();
      attempts.push(await s.attempt(c.user, WHOAMI_ARGS));
    }
    return judge(check, {
      prediction: {
        value: predictions.map((p) => p.value),
        model: MODEL,
        because: predictions.map((p, i) => `${calls[i]!.label}: ${p.because}`).join(' | '),
      },
      observed: attempts.map(observedCall),
      actor: 'kubectl → kubectl oidc-login get-token → kube-apiserver',
      show: (v) => v.map((x, i) => `${calls[i]!.label}: ${showCall(x)}`).join(' | '),
      evidence: [
        ...calls.flatMap((c, i) => attemptEvidence(s.lab, `${c.user} (${c.label})`, [attempts[i]!])),
        ...(more ? await more() : []),
      ],
    });
  });
}

export const passwordCase = (s: Session) => singleCallCase(s, PASSWORD, 'password');
export const wrongSecretCase = (s: Session) => singleCallCase(s, WRONG_SECRET, 'wrong-secret');
export const clientCredentialsCase = (s: Session) => singleCallCase(s, CLIENT_CREDENTIALS, 'client-credentials');

/** Two kubectl processes, one cache dir: the second runs the plugin, which answers from the cache. */
export const cacheCase = (s: Session): Case =>
  callsCase(
    s,
    TOKEN_CACHE,
    [
      { user: 'cache', label: 'first kubectl' },
      { user: 'cache', label: 'second kubectl' },
    ],
    (t0) => ({
      predictions: [
        predictFor(s, 'cache', t0),
        predictFor(s, 'cache', t0 + 5_000, { expMs: tokenFor(s, 'cache', t0).expMs, refreshToken: 'valid' }),
      ],
    }),
    async () => [
      {
        kind: 'data',
        label: `the token cache dir (${s.exec('cache').cacheDir})`,
        data: await describeCacheDir(s.exec('cache').cacheDir),
      },
    ],
  );

/** The cache dir's files: name, mode, size and, for the cache file, its JSON keys (never the values: tokens). */
async function describeCacheDir(dir: string): Promise<Array<Record<string, unknown>>> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return Promise.all(
    names.map(async (name) => {
      const st = await stat(join(dir, name));
      let keys: string[] | undefined;
      try {
        keys = Object.keys(JSON.parse(await readFile(join(dir, name), 'utf8')) as object);
      } catch {
        // The .lock file is empty.
      }
      return { name, mode: (st.mode & 0o777).toString(8), size: st.size, ...(keys ? { jsonFields: keys } : {}) };
    }),
  );
}

/** A short-lived id_token: after its exp the refresh token is used (and, revoked, the password again). */
const expiryCase = (s: Session, check: Check, user: 'refresh' | 'revoked'): Case =>
  callsCase(
    s,
    check,
    [
      { user, label: 'first kubectl (logs in)' },
      { user, label: `kubectl after the id_token's exp${user === 'revoked' ? ', refresh token revoked' : ''}` },
    ],
    (t0) => {
      // exp is whole seconds (floor(now) + lifetime), so it is at most t0 + lifetime.
      const expMs = tokenFor(s, user, t0).expMs;
      const at = expMs + PAST_EXPIRY_MS;
      return {
        predictions: [
          predictFor(s, user, t0),
          predictFor(s, user, at, { expMs, refreshToken: user === 'revoked' ? 'revoked' : 'valid' }),
        ],
        before: [
          async () => {},
          async () => {
            if (user === 'revoked') s.lab.issuer.tokenEndpoint!.revokeRefreshTokens(s.exec(user).user);
            await sleepUntil(at);
          },
        ],
      };
    },
  );

export const refreshCase = (s: Session) => expiryCase(s, REFRESH, 'refresh');
export const revokedRefreshCase = (s: Session) => expiryCase(s, REVOKED_REFRESH, 'revoked');

export const accessTokenCase = (s: Session): Case =>
  callsCase(
    s,
    ACCESS_TOKEN,
    [
      { user: 'access-token', label: 'access_token asked for' },
      { user: 'id-token', label: 'id_token, the default' },
    ],
    (t0) => ({ predictions: [predictFor(s, 'access-token', t0), predictFor(s, 'id-token', t0)] }),
  );

export const caCase = (s: Session): Case =>
  callsCase(
    s,
    CA,
    [
      { user: 'wrong-ca', label: 'a CA that did not sign the issuer' },
      { user: 'right-ca', label: "the issuer's CA" },
      { user: 'skip-verify', label: 'no CA, verification skipped' },
    ],
    (t0) => ({
      predictions: [predictFor(s, 'wrong-ca', t0), predictFor(s, 'right-ca', t0), predictFor(s, 'skip-verify', t0)],
    }),
  );
