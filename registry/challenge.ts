// WWW-Authenticate parsing (RFC 7235): `Bearer realm="…",service="…",scope="…"`
// or `Basic realm="…"`, possibly several challenges in one header.

export interface Challenge {
  /** Lowercased: `basic`, `bearer`. */
  scheme: string;
  params: Record<string, string>;
}

export function parseChallenges(header: string | null | undefined): Challenge[] {
  if (!header) return [];
  const out: Challenge[] = [];
  let i = 0;
  const s = header;
  const skipWs = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  };
  const token = () => {
    const m = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/.exec(s.slice(i));
    if (!m) return '';
    i += m[0].length;
    return m[0];
  };
  while (i < s.length) {
    skipWs();
    while (s[i] === ',') {
      i++;
      skipWs();
    }
    const scheme = token();
    if (!scheme) break;
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} };
    out.push(challenge);
    for (;;) {
      skipWs();
      const save = i;
      const name = token();
      skipWs();
      if (!name || s[i] !== '=') {
        // Not a parameter: the next challenge starts here.
        i = save;
        break;
      }
      i++;
      skipWs();
      let value = '';
      if (s[i] === '"') {
        i++;
        while (i < s.length && s[i] !== '"') {
          if (s[i] === '\\' && i + 1 < s.length) i++;
          value += s[i];
          i++;
        }
        i++;
      } else {
        value = token();
      }
      challenge.params[name.toLowerCase()] = value;
      skipWs();
      if (s[i] === ',') i++;
    }
  }
  return out;
}

/** The scope string a registry expects for a repository: `repository:<name>:<actions>`. */
export function repositoryScope(name: string, actions: string[]): string {
  return `repository:${name}:${actions.join(',')}`;
}

export interface ScopeItem {
  type: string;
  name: string;
  actions: string[];
}

/** Parses `repository:a/b:pull,push` (names may hold a port-free host path; the type's class `repository(plugin)` is kept). */
export function parseScope(scope: string): ScopeItem | undefined {
  const first = scope.indexOf(':');
  const last = scope.lastIndexOf(':');
  if (first <= 0 || last === first) return undefined;
  return {
    type: scope.slice(0, first),
    name: scope.slice(first + 1, last),
    actions: scope
      .slice(last + 1)
      .split(',')
      .filter(Boolean),
  };
}
