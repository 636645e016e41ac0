// The suite's checks of kube-apiserver's structured JWT authenticator
// (--authentication-config), the second real 401 mechanism beside the token
// webhook: the harness signs JWTs with credprov's OIDC issuer
// (src/authn/oidc-issuer.ts) and asks SelfSubjectReview who it is. One model
// (src/model/apiserver-authn.ts: the 10s success cache in front of go-oidc's
// key set and verifier) follows the real API server through all three checks,
// in the order they run, because its cached JWKS carries over from one to the
// next; each check's prediction is that model replayed at the times the
// requests were sent. Tokens appear only as sha256 fingerprints.
import { request } from 'node:https';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { jwtUsernameFor } from '../../src/authn/authentication-config.ts';
import type { StartedOidcIssuer } from '../../src/authn/oidc-issuer.ts';
import { tokenFingerprint } from '../../src/authn/token-book.ts';
import type { Redactor } from '../../src/core/redact.ts';
import {
  ApiServerAuthModel,
  JwtAuthenticatorModel,
  TOKEN_SUCCESS_CACHE_MS,
  type ModelJwt,
} from '../../src/model/apiserver-authn.ts';
import type { CheckResult } from '../../src/report/model.ts';
import { judge } from '../../src/run/prediction.ts';
import { JWKS_KEY_REMOVED, JWT_ACCEPTED, JWT_EXPIRY } from './checks.ts';
import { sleep, sleepUntil } from '../../src/core/time.ts';

const MODEL = 'API server authn model: token success cache + JWT authenticator (src/model/apiserver-authn.ts)';
const SSR_PATH = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

export interface JwtTarget {
  server: string;
  caPem: string;
}

/** POST a SelfSubjectReview with a bearer token: the status and, when authenticated, the username the API server sees. */
export function selfSubjectReview(
  t: JwtTarget,
  token: string,
  timeoutMs = 15_000,
): Promise<{ status: number; username?: string }> {
  return new Promise((resolve) => {
    const req = request(
      `${t.server}${SSR_PATH}`,
      {
        method: 'POST',
        ca: t.caPem,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        timeout: timeoutMs,
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += String(c)));
        res.on('end', () => {
          let username: string | undefined;
          try {
            username = (JSON.parse(body) as { status?: { userInfo?: { username?: string } } }).status?.userInfo
              ?.username;
          } catch {
            // A 401 body is a Status; only a review names a user.
          }
          resolve({ status: res.statusCode ?? 0, ...(username ? { username } : {}) });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0 }));
    req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
  });
}

interface Sent {
  label: string;
  /** Which key signed it, by role (the kids themselves are in the fetch log). */
  key: string;
  fingerprint: string;
  /** ms since epoch: when the request was sent and when its answer ended. */
  at: number;
  endAt: number;
  status: number;
  username?: string;
  /** JWKS fetches the issuer served while the request was in flight. */
  jwksFetches: number;
}

interface Outcome {
  label: string;
  /** `accepted as <username>` or the status. */
  outcome: string;
  jwksFetched: boolean;
}

/** The issuer, the API server and the model of it, shared by the three checks (run one after another). */
export class JwtProbe {
  private readonly tokens = new Map<string, ModelJwt & { subject: string }>();
  private readonly served: Array<{ at: number; kids: string[] }>;
  private readonly keyNames = new Map<string, string>();
  private readonly jwt: JwtAuthenticatorModel;
  private readonly auth: ApiServerAuthModel;
  private last: { fetched: boolean; because: string } = { fetched: false, because: '' };
  readonly issuer: StartedOidcIssuer;
  private readonly target: JwtTarget;
  private readonly redactor: Redactor;

  constructor(issuer: StartedOidcIssuer, target: JwtTarget, redactor: Redactor) {
    this.issuer = issuer;
    this.target = target;
    this.redactor = redactor;
    this.served = [{ at: 0, kids: issuer.servedKids() }];
    this.name(issuer.currentKid(), 'key 1');
    this.jwt = new JwtAuthenticatorModel((now) => [...this.served].reverse().find((s) => s.at <= now)!.kids);
    this.auth = new ApiServerAuthModel({
      review: (fingerprint, now) => {
        const v = this.jwt.verify(this.tokens.get(fingerprint)!, now);
        this.last = v;
        return v.verdict;
      },
      certValid: () => false,
    });
  }

  private name(kid: string, role: string): void {
    this.keyNames.set(kid, role);
  }

  keyName(kid: string): string {
    return this.keyNames.get(kid) ?? kid;
  }

  /** Add a key (it signs new tokens from now on) and stop serving `remove`; the JWKS change is stamped for the model. */
  async rotate(role: string, remove?: string): Promise<string> {
    const kid = await this.issuer.addKey();
    this.name(kid, role);
    if (remove) this.issuer.removeKey(remove);
    this.served.push({ at: Date.now(), kids: this.issuer.servedKids() });
    return kid;
  }

  async sign(
    subject: string,
    o: { exp?: number; kid?: string } = {},
  ): Promise<{ token: string; fingerprint: string; key: string; expMs: number }> {
    const token = await this.issuer.sign({ subject, ...o });
    this.redactor.add(token);
    const fingerprint = tokenFingerprint(token);
    const claims = decodeJwt(token);
    const kid = decodeProtectedHeader(token).kid!;
    this.tokens.set(fingerprint, { kid, expMs: claims.exp! * 1000, nbfMs: claims.nbf! * 1000, subject });
    return { token, fingerprint, key: this.keyName(kid), expMs: claims.exp! * 1000 };
  }

  async send(label: string, t: { token: string; fingerprint: string; key: string }): Promise<Sent> {
    const at = Date.now();
    const r = await selfSubjectReview(this.target, t.token);
    const endAt = Date.now();
    const jwksFetches = this.issuer
      .fetches()
      .filter((f) => f.what === 'jwks' && f.atMs >= at && f.atMs <= endAt).length;
    return {
      label,
      key: t.key,
      fingerprint: t.fingerprint,
      at,
      endAt,
      status: r.status,
      ...(r.username ? { username: r.username } : {}),
      jwksFetches,
    };
  }

  /** The model, fed these requests in order at the times they were sent (its state carries on to the next call). */
  predict(sent: Sent[]): { outcomes: Outcome[]; because: string[] } {
    const because: string[] = [];
    const outcomes = sent.map((s) => {
      this.last = { fetched: false, because: '' };
      const r = this.auth.serve(s.at, { token: s.fingerprint });
      const subject = this.tokens.get(s.fingerprint)!.subject;
      because.push(`${s.label} (${s.key}): ${r.reviewed ? this.last.because : r.because}`);
      return {
        label: s.label,
        outcome: r.status === 200 ? `accepted as ${jwtUsernameFor(subject)}` : String(r.status),
        jwksFetched: this.last.fetched,
      };
    });
    return { outcomes, because };
  }

  fetchLog(since: number): Array<Record<string, unknown>> {
    return this.issuer
      .fetches()
      .filter((f) => f.atMs >= since)
      .map((f) => ({
        at: f.at,
        what: f.what,
        ...(f.kids ? { keys: f.kids.map((k) => `${this.keyName(k)} (${k})`) } : {}),
      }));
  }
}

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
  const startedAt = new Date();
  const tok = await p.sign('jwt-accepted');
  const sent = [await p.send("a JWT from the issuer's current key", tok)];
  const predicted = p.predict(sent);
  return judge(JWT_ACCEPTED, {
    prediction: { value: predicted.outcomes, model: MODEL, because: predicted.because.join('; ') },
    observed: observedOf(sent),
    show,
    actor: 'kube-apiserver',
    startedAt,
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
  const startedAt = new Date();
  // exp a few whole seconds ahead; every request is ≥0.5s from exp and from the success cache's 10s edge.
  const exp = Math.ceil(Date.now() / 1000) + 4;
  const expMs = exp * 1000;
  const reused = await p.sign('jwt-expiry', { exp });
  const sent: Sent[] = [];
  const at = async (offset: number, label: string, t: { token: string; fingerprint: string; key: string }) => {
    await sleepUntil(expMs + offset);
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
    startedAt,
    evidence: [
      {
        kind: 'data',
        label: 'SelfSubjectReview requests (atMs from exp)',
        data: { exp: new Date(expMs).toISOString(), requests: requestsEvidence(sent, expMs) },
      },
      { kind: 'data', label: "the issuer's JWKS fetches during the check", data: p.fetchLog(startedAt.getTime()) },
    ],
  });
  const fact = `measured: a fresh JWT was last accepted at exp${lastAccepted ? rel(lastAccepted) : ' (never)'} and first refused at exp+${firstRefused ? rel(firstRefused) : ' (never)'}; a JWT verified at exp-3s was still accepted at exp+3s (success cache) and refused at exp+8s`;
  return { ...r, message: `${r.message}. ${fact.replace('exp+-', 'exp-')}` };
}

export async function checkJwksKeyRemoved(p: JwtProbe, quietMs = 15_000): Promise<CheckResult> {
  const startedAt = new Date();
  const old = p.issuer.currentKid();
  const first = await p.sign('jwt-rotation');
  const sent: Sent[] = [await p.send('old key, before rotation', first)];
  const replacement = await p.rotate('key 2', old);
  const rotatedAt = Date.now();
  // Nothing reaches the API server for a while: a timer-driven refetch, if there were one, would drop the old key here.
  await sleep(quietMs);
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
  const fetches = p.fetchLog(startedAt.getTime());
  const r = judge(JWKS_KEY_REMOVED, {
    prediction: { value: predicted.outcomes, model: MODEL, because: predicted.because.join('; ') },
    observed,
    show,
    actor: 'kube-apiserver',
    startedAt,
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
