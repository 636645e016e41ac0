// The tokens credprov's token webhook knows: issued on command (by the suite
// in process, or by a plugin through the webhook's issuing endpoint), expired
// and revoked on command, and looked up when the API server asks for a
// TokenReview. Only fingerprints ever leave this module; the raw token goes
// to whoever asked for it and to the redactor (onIssue).
import { createHash, randomBytes } from 'node:crypto';

/** What a token is known as in evidence: never the token itself. */
export function tokenFingerprint(token: string): string {
  return `sha256:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}

export type Verdict = 'authenticated' | 'unknown' | 'revoked' | 'expired';

export interface IssuedToken {
  token: string;
  fingerprint: string;
  /** Who the token authenticates as (the TokenReview's user.username is derived from it). */
  subject: string;
  issuedAt: number;
  /** When the webhook stops accepting it (ms since epoch); absent: never. */
  expiresAt?: number;
  revokedAt?: number;
}

export interface IssuePolicy {
  /** How long the webhook accepts a new token; null: forever. Default 1 h. */
  lifetimeMs?: number | null;
  /** The next N tokens are issued already revoked: a plugin that hands out a token the server refuses. */
  rejectNext?: number;
}

export interface Lookup {
  verdict: Verdict;
  token?: IssuedToken;
}

export interface TokenBookOptions {
  now?: () => number;
  /** Called with every raw token as it is issued (register it with the redactor). */
  onIssue?: (token: string) => void;
}

const DEFAULT_LIFETIME_MS = 3_600_000;

export class TokenBook {
  private readonly byToken = new Map<string, IssuedToken>();
  private readonly now: () => number;
  private readonly onIssue: (token: string) => void;
  private readonly policies = new Map<string, IssuePolicy>();

  constructor(o: TokenBookOptions = {}) {
    this.now = o.now ?? Date.now;
    this.onIssue = o.onIssue ?? (() => {});
  }

  /** How tokens for `subject` are issued from now on (the issuing endpoint follows it too). */
  setPolicy(subject: string, policy: IssuePolicy): void {
    this.policies.set(subject, { ...policy });
  }

  issue(subject: string, o: { lifetimeMs?: number | null } = {}): IssuedToken {
    const policy = this.policies.get(subject) ?? {};
    const lifetime =
      o.lifetimeMs !== undefined
        ? o.lifetimeMs
        : policy.lifetimeMs !== undefined
          ? policy.lifetimeMs
          : DEFAULT_LIFETIME_MS;
    const now = this.now();
    const token = `cp401.${randomBytes(24).toString('base64url')}`;
    const t: IssuedToken = {
      token,
      fingerprint: tokenFingerprint(token),
      subject,
      issuedAt: now,
      ...(lifetime === null ? {} : { expiresAt: now + lifetime }),
    };
    if (policy.rejectNext && policy.rejectNext > 0) {
      t.revokedAt = now;
      policy.rejectNext--;
    }
    this.byToken.set(token, t);
    this.onIssue(token);
    return { ...t };
  }

  /** Revokes one token (by value or fingerprint) or, with a subject, every token issued to it; returns the fingerprints revoked. */
  revoke(which: { token?: string; fingerprint?: string; subject?: string }): string[] {
    const now = this.now();
    const hit = [...this.byToken.values()].filter(
      (t) =>
        t.revokedAt === undefined &&
        (t.token === which.token || t.fingerprint === which.fingerprint || t.subject === which.subject),
    );
    for (const t of hit) t.revokedAt = now;
    return hit.map((t) => t.fingerprint);
  }

  /** Makes tokens expire now (the webhook refuses them from the next review on). */
  expire(which: { fingerprint?: string; subject?: string }): string[] {
    const now = this.now();
    const hit = [...this.byToken.values()].filter(
      (t) => t.fingerprint === which.fingerprint || t.subject === which.subject,
    );
    for (const t of hit) t.expiresAt = Math.min(t.expiresAt ?? now, now);
    return hit.map((t) => t.fingerprint);
  }

  lookup(token: string): Lookup {
    const t = this.byToken.get(token);
    if (!t) return { verdict: 'unknown' };
    const copy = { ...t };
    if (t.revokedAt !== undefined) return { verdict: 'revoked', token: copy };
    // Expired once now is past expiresAt, as client-go reads expirationTimestamp.
    if (t.expiresAt !== undefined && this.now() > t.expiresAt) return { verdict: 'expired', token: copy };
    return { verdict: 'authenticated', token: copy };
  }

  /** Every token issued so far, without the token values. */
  list(): Array<Omit<IssuedToken, 'token'>> {
    return [...this.byToken.values()].map(({ token: _t, ...rest }) => rest);
  }
}
