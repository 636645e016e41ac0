// htpasswd files for distribution: bcrypt only (other hash kinds are ignored
// by the registry), one `user:hash` line each.
import bcrypt from 'bcryptjs';
import type { User } from './auth.ts';

const USERNAME_RE = /^[^:\s]+$/;

export function htpasswdLine(user: Pick<User, 'username' | 'password'>, cost = 5): string {
  if (!USERNAME_RE.test(user.username))
    throw new Error(`htpasswd user name '${user.username}' must not be empty or contain ':' or whitespace`);
  return `${user.username}:${bcrypt.hashSync(user.password, cost)}`;
}

export function htpasswdFile(users: Array<Pick<User, 'username' | 'password'>>, cost = 5): string {
  return users.map((u) => htpasswdLine(u, cost)).join('\n') + '\n';
}

/** Verifies a password against a file's line: what the registry does per request. */
export function htpasswdVerify(file: string, username: string, password: string): boolean {
  for (const line of file.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0 && line.slice(0, i) === username) return bcrypt.compareSync(password, line.slice(i + 1));
  }
  return false;
}
