// How exec-plugin-401 talks to kube-apiserver's structured JWT authenticator
// (--authentication-config), the second real 401 mechanism beside the token
// webhook: JwtProbe signs JWTs with credprov's OIDC issuer
// (src/authn/oidc-issuer.ts), asks SelfSubjectReview who it is, and keeps one
// model (src/model/apiserver-authn.ts: the 10s success cache in front of
// go-oidc's key set and verifier) that follows the real API server through the
// checks in jwt-checks.ts, in the order they run, because its cached JWKS
// carries over from one to the next. Tokens appear only as sha256 fingerprints.
import { request } from 'node:https';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { jwtUsernameFor } from '../../src/authn/authentication-config.ts';
import type { StartedOidcIssuer } from '../../src/authn/oidc-issuer.ts';
import { tokenFingerprint } from '../../src/authn/token-book.ts';
import type { Redactor } from '../../src/core/redact.ts';
import { ApiServerAuthModel, JwtAuthenticatorModel, type ModelJwt } from '../../src/model/apiserver-authn.ts';

export const MODEL = 'API server authn model: token success cache + JWT authenticator (src/model/apiserver-authn.ts)';
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

export interface Sent {
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

export interface Outcome {
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
