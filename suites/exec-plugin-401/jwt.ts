// How exec-plugin-401 talks to kube-apiserver's structured JWT authenticator
// (--authentication-config), the second real 401 mechanism beside the token
// webhook: JwtProbe signs JWTs with credprov's OIDC issuer
// (src/authn/oidc-issuer.ts), asks SelfSubjectReview who it is, and tells the
// model (predict-jwt.ts) every token it signed and every key set the issuer
// served. Tokens appear only as sha256 fingerprints.
import { decodeJwt, decodeProtectedHeader } from 'jose';
import {
  selfSubjectReview,
  systemClock,
  tokenFingerprint,
  type Clock,
  type ClusterView,
  type Redactor,
  type StartedOidcIssuer,
} from '../../src/run/kit.ts';

import { JwtModel, type Outcome } from './predict-jwt.ts';

export { MODEL, type Outcome } from './predict-jwt.ts';

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

/** The issuer, the API server and the model of it, shared by the three checks (run one after another). */
export class JwtProbe {
  private readonly keyNames = new Map<string, string>();
  private readonly model: JwtModel;
  readonly issuer: StartedOidcIssuer;
  private readonly target: Pick<ClusterView, 'server' | 'caPem'>;
  private readonly redactor: Redactor;
  readonly clock: Clock;

  constructor(
    issuer: StartedOidcIssuer,
    target: Pick<ClusterView, 'server' | 'caPem'>,
    redactor: Redactor,
    clock: Clock = systemClock,
  ) {
    this.issuer = issuer;
    this.target = target;
    this.redactor = redactor;
    this.clock = clock;
    this.model = new JwtModel(issuer.servedKids());
    this.name(issuer.currentKid(), 'key 1');
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
    this.model.serves(this.clock.now(), this.issuer.servedKids());
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
    this.model.signed(fingerprint, { kid, expMs: claims.exp! * 1000, nbfMs: claims.nbf! * 1000, subject });
    return { token, fingerprint, key: this.keyName(kid), expMs: claims.exp! * 1000 };
  }

  async send(label: string, t: { token: string; fingerprint: string; key: string }): Promise<Sent> {
    const at = this.clock.now();
    const r = await selfSubjectReview(this.target, t.token);
    const endAt = this.clock.now();
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

  /** The model's outcomes for these requests, in order (its state carries on to the next call). */
  predict(sent: Sent[]): { outcomes: Outcome[]; because: string[] } {
    return this.model.predict(sent);
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
