// What kube-apiserver's structured JWT authenticator does with each request
// JwtProbe sends: one model (src/model/apiserver-authn.ts: the 10s success
// cache in front of go-oidc's key set and verifier) that follows the real API
// server through the JWT checks in the order they run, because its cached
// JWKS carries over from one to the next. Fed the tokens the issuer signed and
// the key sets it served, at the times they changed.
import { ApiServerAuthModel, JwtAuthenticatorModel, type ModelJwt } from '../../src/model/apiserver-authn.ts';
import { jwtUsernameFor } from '../../src/run/kit.ts';

export const MODEL = 'API server authn model: token success cache + JWT authenticator (src/model/apiserver-authn.ts)';

export interface Outcome {
  label: string;
  /** `accepted as <username>` or the status. */
  outcome: string;
  jwksFetched: boolean;
}

/** A request as the model takes it: which token, sent when. */
export interface ModelRequest {
  label: string;
  /** Which key signed it, by role. */
  key: string;
  fingerprint: string;
  /** ms since epoch. */
  at: number;
}

export class JwtModel {
  private readonly tokens = new Map<string, ModelJwt & { subject: string }>();
  private readonly served: Array<{ at: number; kids: string[] }>;
  private readonly jwt: JwtAuthenticatorModel;
  private readonly auth: ApiServerAuthModel;
  private last: { fetched: boolean; because: string } = { fetched: false, because: '' };

  /** `kids`: the key set the issuer serves from the start. */
  constructor(kids: string[]) {
    this.served = [{ at: 0, kids }];
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

  /** A token the issuer signed, by its fingerprint. */
  signed(fingerprint: string, t: ModelJwt & { subject: string }): void {
    this.tokens.set(fingerprint, t);
  }

  /** The key set the issuer serves from `at` on. */
  serves(at: number, kids: string[]): void {
    this.served.push({ at, kids });
  }

  /** The model, fed these requests in order at the times they were sent (its state carries on to the next call). */
  predict(sent: ModelRequest[]): { outcomes: Outcome[]; because: string[] } {
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
}
