// Registry auth modes as values: Auth.none(), Auth.htpasswd(users),
// Auth.token(opts). A provider turns one into registry config (and, for token
// mode, a running token server).
import { randomBytes } from 'node:crypto';

export type Action = 'pull' | 'push' | 'delete' | '*';

/** Which repositories a user may touch in token mode: `repository` is a glob (`*` spans slashes). */
export interface AccessRule {
  repository: string;
  actions: Action[];
}

export interface User {
  username: string;
  password: string;
  /** Token mode only; default: every repository, pull and push. htpasswd has no per-repository rules. */
  access?: AccessRule[];
}

export interface NoAuth {
  mode: 'none';
}

export interface HtpasswdAuth {
  mode: 'htpasswd';
  users: User[];
  realm: string;
  /** bcrypt cost; low by default because every request is verified with it. */
  bcryptCost: number;
}

export interface TokenAuth {
  mode: 'token';
  users: User[];
  /** Seconds a token is valid; the registry adds its own leeway on top. */
  lifetimeSeconds: number;
  issuer: string;
  service: string;
  /** Milliseconds since the epoch; tests move it to mint expired tokens. */
  clock?: () => number;
}

export type AuthSpec = NoAuth | HtpasswdAuth | TokenAuth;
export type AuthMode = AuthSpec['mode'];

export const Auth = {
  none(): NoAuth {
    return { mode: 'none' };
  },
  htpasswd(users: User[], o: { realm?: string; bcryptCost?: number } = {}): HtpasswdAuth {
    return { mode: 'htpasswd', users, realm: o.realm ?? 'credprov', bcryptCost: o.bcryptCost ?? 5 };
  },
  token(o: {
    users: User[];
    lifetimeSeconds?: number;
    issuer?: string;
    service?: string;
    clock?: () => number;
  }): TokenAuth {
    return {
      mode: 'token',
      users: o.users,
      lifetimeSeconds: o.lifetimeSeconds ?? 300,
      issuer: o.issuer ?? 'credprov-token-server',
      service: o.service ?? 'credprov-registry',
      ...(o.clock ? { clock: o.clock } : {}),
    };
  },
};

/** A user with a random password, e.g. for `registry up` without --user. */
export function generatedUser(username = 'credprov'): User {
  return { username, password: randomBytes(18).toString('base64url') };
}

/** `user:password` from the command line; the password may itself contain colons. */
export function parseUserFlag(text: string): User | undefined {
  const i = text.indexOf(':');
  if (i <= 0 || i === text.length - 1) return undefined;
  return { username: text.slice(0, i), password: text.slice(i + 1) };
}

export function usersOf(auth: AuthSpec): User[] {
  return auth.mode === 'none' ? [] : auth.users;
}
