// The three JWT checks of exec-plugin-401, each a prediction from the API
// server's JWT rules (src/model/apiserver-authn.ts) replayed in request order,
// then the requests JwtProbe really sent.
import { TOKEN_SUCCESS_CACHE_MS } from '../../src/model/apiserver-authn.ts';
import { harnessFailed, judge, sleep, sleepUntil, type Case, type CheckResult } from '../../src/run/kit.ts';
import { JWKS_KEY_REMOVED, JWT_ACCEPTED, JWT_CHECKS, JWT_EXPIRY } from './checks.ts';
import { JwtProbe, MODEL, type Outcome, type Sent } from './jwt.ts';

const observedOf = (sent: Sent[]): Outcome[] =>
  sent.map((s) => ({
    label: s.label,
    outcome: s.status === 201 && s.username ? `accepted as ${s.username}` : String(s.status),
    jwksFetched: s.jwksFetches > 0,
  }));
const show = (v: Outcome[]) =>
  v.map((o) => `${o.label}: ${o.outcome}${o.jwksFetched ? ' (JWKS fetched)' : ''}`).join('; ');
/** Requests for the evidence: times relative to `zero` (exp, the rotation, or the first request). */
const requestsEvidence = (sent: Sent[], zero: number) =>
  sent.map(({ label, key, fingerprint, at, endAt, status, username, jwksFetches }) => ({
    label,
    key,
    tokenFingerprint: fingerprint,
    atMs: at - zero,
    tookMs: endAt - at,
    status,
    ...(username ? { username } : {}),
    jwksFetches,
  }));

export async function checkJwtAccepted(p: JwtProbe): Promise<CheckResult> {
  const tok = await p.sign('jwt-accepted');
  const sent = [await p.send("a JWT from the issuer's current key", tok)];
  const predicted = p.predict(sent);
  return judge(JWT_ACCEPTED, {
    prediction: { value: predicted.outcomes, model: MODEL, because: predicted.because.join('; ') },
    observed: observedOf(sent),
    show,
    actor: 'kube-apiserver',
    evidence: [
      {
        kind: 'data',
        label: 'SelfSubjectReview requests (ms from the first)',
        data: requestsEvidence(sent, sent[0]!.at),
      },
      { kind: 'data', label: "the issuer's discovery and JWKS fetches (this run)", data: p.fetchLog(0) },
    ],
  });
}

export async function checkJwtExpiry(p: JwtProbe): Promise<CheckResult> {
  const since = p.clock.now();
  // exp a few whole seconds ahead; every request is ≥0.5s from exp and from the success cache's 10s edge.
  const exp = Math.ceil(since / 1000) + 4;
  const expMs = exp * 1000;
  const reused = await p.sign('jwt-expiry', { exp });
  const sent: Sent[] = [];
  const at = async (offset: number, label: string, t: { token: string; fingerprint: string; key: string }) => {
    await sleepUntil(expMs + offset, p.clock);
    sent.push(await p.send(label, t));
  };
  await at(-3000, 'token R, exp-3s (first use)', reused);
  // Before exp, 1s of margin: a request is judged at its sending time, and the API server reads its clock after the
  // TLS handshake, which a loaded host can stretch by hundreds of ms. After exp no delay can turn a refusal into an acceptance.
  for (const offset of [-2000, -1000, 500, 1500]) {
    await at(offset, `fresh token, exp${offset < 0 ? '' : '+'}${offset / 1000}s`, await p.sign('jwt-expiry', { exp }));
  }
  await at(3000, 'token R again, exp+3s', reused);
  await at(-3000 + TOKEN_SUCCESS_CACHE_MS + 1000, 'token R again, exp+8s', reused);
  const predicted = p.predict(sent);
  const observed = observedOf(sent);
  const rel = (s: Sent) => `${((s.at - expMs) / 1000).toFixed(1)}s`;
  const fresh = sent.filter((s) => s.label.startsWith('fresh'));
  const firstRefused = fresh.find((s) => s.status === 401);
  const lastAccepted = [...fresh].reverse().find((s) => s.status === 201);
  const r = judge(JWT_EXPIRY, {
    prediction: {
      value: predicted.outcomes,
      model: MODEL,
      because: `no leeway on exp (go-oidc verify.go:306), a success cached ${TOKEN_SUCCESS_CACHE_MS / 1000}s: ${predicted.because.join('; ')}`,
    },
    observed,
    show,
    actor: 'kube-apiserver',
    evidence: [
      {
        kind: 'data',
        label: 'SelfSubjectReview requests (atMs from exp)',
        data: { exp: new Date(expMs).toISOString(), requests: requestsEvidence(sent, expMs) },
      },
      { kind: 'data', label: "the issuer's JWKS fetches during the check", data: p.fetchLog(since) },
    ],
  });
  const fact = `measured: a fresh JWT was last accepted at exp${lastAccepted ? rel(lastAccepted) : ' (never)'} and first refused at exp+${firstRefused ? rel(firstRefused) : ' (never)'}; a JWT verified at exp-3s was still accepted at exp+3s (success cache) and refused at exp+8s`;
  return { ...r, message: `${r.message}. ${fact.replace('exp+-', 'exp-')}` };
}

export async function checkJwksKeyRemoved(p: JwtProbe, quietMs = 15_000): Promise<CheckResult> {
  const since = p.clock.now();
  const old = p.issuer.currentKid();
  const first = await p.sign('jwt-rotation');
  const sent: Sent[] = [await p.send('old key, before rotation', first)];
  const replacement = await p.rotate('key 2', old);
  const rotatedAt = p.clock.now();
  // Nothing reaches the API server for a while: a timer-driven refetch, if there were one, would drop the old key here.
  await sleep(quietMs, p.clock);
  const fresh = await p.sign('jwt-rotation', { kid: old });
  sent.push(await p.send(`old key, fresh token, rotation+${quietMs / 1000}s`, fresh));
  sent.push(
    await p.send('new key (a kid the API server does not know)', await p.sign('jwt-rotation', { kid: replacement })),
  );
  sent.push(await p.send('old key, another fresh token, after that', await p.sign('jwt-rotation', { kid: old })));
  sent.push(await p.send('old key, the token accepted before rotation', first));
  sent.push(await p.send('old key, the fresh token accepted after rotation, again', fresh));
  const predicted = p.predict(sent);
  const observed = observedOf(sent);
  const fetches = p.fetchLog(since);
  const r = judge(JWKS_KEY_REMOVED, {
    prediction: { value: predicted.outcomes, model: MODEL, because: predicted.because.join('; ') },
    observed,
    show,
    actor: 'kube-apiserver',
    evidence: [
      {
        kind: 'data',
        label: 'SelfSubjectReview requests (atMs from the rotation: key 2 added, key 1 removed from the JWKS)',
        data: requestsEvidence(sent, rotatedAt),
      },
      { kind: 'data', label: "the issuer's JWKS fetches during the check", data: fetches },
    ],
  });
  const acceptedAfter = observed[1]!.outcome.startsWith('accepted') && !observed[1]!.jwksFetched;
  const fact = acceptedAfter
    ? `fact: a token signed by a key removed from the JWKS was still accepted ${quietMs / 1000}s after the removal with no JWKS fetch (no timer); the first token with a kid the API server did not know made it refetch, after which the removed key's tokens were refused (each refusal refetching again) except one still in the 10s success cache`
    : "fact: the removed key's tokens were not accepted after the removal (see the requests)";
  return { ...r, message: `${r.message}. ${fact}` };
}

/** The three checks in order (the JWKS the API server cached carries over); without the first, the others are no verdict. */
export function jwtCase(probe: JwtProbe): Case {
  return {
    checks: JWT_CHECKS,
    async run() {
      const accepted = await checkJwtAccepted(probe);
      if (accepted.status !== 'passed')
        return [
          accepted,
          ...JWT_CHECKS.slice(1).map((c) =>
            harnessFailed(c, `not run: ${JWT_ACCEPTED.id} failed (${accepted.message})`),
          ),
        ];
      const expiry = await checkJwtExpiry(probe);
      return [accepted, expiry, await checkJwksKeyRemoved(probe)];
    },
  };
}
