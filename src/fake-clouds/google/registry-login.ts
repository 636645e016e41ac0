// Who may log in to gcr.io and Artifact Registry (*-docker.pkg.dev): their
// Docker token services take Basic auth whose password is a Google OAuth
// access token and whose user name is `_token` or `oauth2accesstoken`
// (Google's "Authenticating to Container Registry" / "Configure authentication
// to Artifact Registry for Docker": access-token authentication). A token the
// fake metadata server minted is accepted until it expires; any other
// password, an expired token or another user name is refused. Each login is
// recorded with the token's fingerprint, never the token.
import { appendFileSync } from 'node:fs';
import type { IssuedTokens } from '../kit/index.ts';
import { tokenFingerprint } from '../../authn/token-book.ts';
import type { MetadataGrant } from './metadata.ts';

export const GOOGLE_REGISTRY_USERNAMES = ['_token', 'oauth2accesstoken'] as const;

export type LoginVerdict = 'accepted' | 'expired' | 'unknown token' | 'not an access-token login';

export interface RegistryLogin {
  time: string;
  /** The registry the token service is for (gcr.io, us-docker.pkg.dev …). */
  registry: string;
  username: string;
  fingerprint: string;
  verdict: LoginVerdict;
  /** The account the token was minted for. */
  email?: string;
  /** Seconds the token had left (negative: expired that long ago). */
  secondsLeft?: number;
}

export class GoogleRegistryLogins {
  private readonly tokens: IssuedTokens<MetadataGrant>;
  private readonly now: () => number;
  private readonly logFile: string | undefined;
  private readonly seen: RegistryLogin[] = [];

  constructor(o: { tokens: IssuedTokens<MetadataGrant>; now: () => number; logFile?: string }) {
    this.tokens = o.tokens;
    this.now = o.now;
    this.logFile = o.logFile;
  }

  /** The token service's decision on a Basic login to `registry`. */
  decide(registry: string, username: string, password: string): RegistryLogin {
    const now = this.now();
    const grant = this.tokens.lookup(password);
    const verdict: LoginVerdict = !(GOOGLE_REGISTRY_USERNAMES as readonly string[]).includes(username)
      ? 'not an access-token login'
      : !grant
        ? 'unknown token'
        : grant.expiresAt <= now
          ? 'expired'
          : 'accepted';
    const login: RegistryLogin = {
      time: new Date(now).toISOString(),
      registry,
      username,
      fingerprint: tokenFingerprint(password),
      verdict,
      ...(grant ? { email: grant.email, secondsLeft: Math.floor((grant.expiresAt - now) / 1000) } : {}),
    };
    this.seen.push(login);
    if (this.logFile) appendFileSync(this.logFile, `${JSON.stringify(login)}\n`);
    return login;
  }

  /** Every login so far, oldest first. */
  logins(): RegistryLogin[] {
    return this.seen.map((l) => ({ ...l }));
  }
}
