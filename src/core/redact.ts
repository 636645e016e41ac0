// Secrets must never reach a report or a log unredacted. Three layers:
//   - keys: a credential-named key (password, token, …Token, clientKeyData,
//     auth …) has its value redacted, whatever the value's type, in objects
//     and in raw text that is JSON, YAML (block or flow) or key=value;
//   - values: every secret found that way, and every secret the harness
//     registers (passwords it made, tokens it minted), is learnt, and redacted
//     wherever else it appears, with or without a key next to it;
//   - shapes: JWTs and PEM private keys, wherever they appear.
// A plugin's output is hostile input: it may answer in YAML, make a password
// an array, or print its token on stderr. Redacting whatever the encoding or
// type is cheaper than being right about every way it could leak.
export const REDACTED = '<redacted>';

const SHAPES: RegExp[] = [
  // JWT: three base64url segments, the first starting with '{"' encoded (eyJ).
  /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
  // A bearer credential a client quotes in its error (vert.x: "a header value contains a prohibited character
  // '127': Bearer <token>"): the token of a plugin run credprov never saw (a plugin minting one per run).
  /(?<=\bBearer )(?!<redacted>)[^\s'",;]{4,}/g,
];

// Credential-named keys: password, token and anything ending in them
// (serviceAccountToken, identitytoken, registrytoken, access_token, client_secret …).
const SECRET_KEY =
  /^([A-Za-z0-9_.-]*(token|secret|password|passwd)|auth|authorization|clientKeyData|client-key-data|api[_-]?key|private[_-]?key)$/i;
// `auth` is a secret in docker config.json (base64 user:password) but, in a
// kubelet response, the map from registry to credentials: an object under it is walked, not hidden.
const CONTAINER_KEY = /^auth$/i;
// Cheap test before the text passes: could this text name a credential at all?
const MENTIONS_KEY = /token|secret|passw|auth|key/i;
const NOT_SECRET = /^(true|false|null|~|yes|no|on|off)$/i;

/** Learnt values shorter than this are too likely to occur innocently. */
const MIN_SECRET = 4;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

export class Redactor {
  private readonly values = new Set<string>();

  /** Registers an exact secret value. Values shorter than 4 characters are ignored (too likely to occur innocently). */
  add(...secrets: Array<string | undefined>): this {
    return this.remember(secrets);
  }

  /** Learns the secrets in a plugin's raw output (JSON, YAML, key=value) without redacting anything yet. */
  learn(text: string): this {
    return this.remember(scrub(text).found);
  }

  text(input: string): string {
    const { out, found } = scrub(input);
    this.remember(found);
    return this.replaceKnown(out);
  }

  // Learnt values (a key=value guess in some text) are kept apart from `add`: a subclass that records what
  // was registered (the leak scans' RecordingRedactor) hears only the secrets a lab or fake issued.
  private remember(secrets: Array<string | undefined>): this {
    for (const s of secrets) if (s && s.length >= MIN_SECRET && s !== REDACTED) this.values.add(s);
    return this;
  }

  /** Deep copy of `value` with secrets redacted; secrets found anywhere in it are redacted everywhere in it. */
  value<T>(value: T): T {
    // First learn from all of it, so a secret that appears early without a key
    // is caught by what a later part shows under one.
    const scrubbed = new Map<string, string>();
    this.harvest(value, undefined, scrubbed);
    return this.walk(value, undefined, scrubbed) as T;
  }

  private harvest(v: unknown, key: string | undefined, scrubbed: Map<string, string>): void {
    if (key !== undefined && isSecretValue(v, key)) {
      this.remember(leaves(v));
      return;
    }
    if (typeof v === 'string') {
      if (!scrubbed.has(v)) {
        const { out, found } = scrub(v);
        scrubbed.set(v, out);
        this.remember(found);
      }
    } else if (Array.isArray(v)) for (const x of v) this.harvest(x, undefined, scrubbed);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) this.harvest(x, k, scrubbed);
  }

  private walk(v: unknown, key: string | undefined, scrubbed: Map<string, string>): unknown {
    if (key !== undefined && isSecretValue(v, key)) return REDACTED;
    if (typeof v === 'string') return this.replaceKnown(scrubbed.get(v) ?? scrub(v).out);
    if (Array.isArray(v)) return v.map((x) => this.walk(x, undefined, scrubbed));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = this.walk(x, k, scrubbed);
      return out;
    }
    return v;
  }

  private replaceKnown(input: string): string {
    let out = input;
    // Longest first so a secret that contains another is replaced whole.
    for (const v of [...this.values].sort((a, b) => b.length - a.length))
      if (out.includes(v)) out = out.split(v).join(REDACTED);
    for (const re of SHAPES) out = out.replace(re, REDACTED);
    return out;
  }
}

/** Does this value under this key hold a secret? Booleans and null never do; an object under `auth` is a container. */
export function isSecretValue(v: unknown, key: string): boolean {
  if (!isSecretKey(key)) return false;
  if (typeof v === 'string') return v !== '' && v !== REDACTED && !NOT_SECRET.test(v);
  if (typeof v === 'number' || typeof v === 'bigint') return true;
  if (Array.isArray(v)) return v.length > 0;
  if (v && typeof v === 'object') return !CONTAINER_KEY.test(key);
  return false;
}

/** Every string and number inside a value. */
function leaves(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (typeof v === 'number' || typeof v === 'bigint') return [String(v)];
  if (Array.isArray(v)) return v.flatMap(leaves);
  if (v && typeof v === 'object') return Object.values(v).flatMap(leaves);
  return [];
}

interface Scrubbed {
  out: string;
  found: string[];
}

/** Redacts credential-keyed values in raw text, and says what they were. */
export function scrub(text: string): Scrubbed {
  if (!MENTIONS_KEY.test(text)) return { out: text, found: [] };
  const found: string[] = [];
  let out = jsonPass(text, found);
  out = yamlBlockPass(out, found);
  out = flowPass(out, found);
  out = keyEqualsPass(out, found);
  return { out, found: found.filter((s) => s.length >= MIN_SECRET && s !== REDACTED && !NOT_SECRET.test(s)) };
}

// "key": <JSON value>, anywhere in the text (pretty, compact, or amid noise).
function jsonPass(text: string, found: string[]): string {
  const re = /"((?:[^"\\\n]|\\.)*)"\s*:\s*/g;
  let out = '';
  let copied = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const key = m[1]!;
    if (!isSecretKey(key)) continue;
    const start = m.index + m[0].length;
    const end = jsonValueEnd(text, start);
    if (end <= start) continue;
    const raw = text.slice(start, end);
    if ((raw.startsWith('{') && CONTAINER_KEY.test(key)) || /^(true|false|null)$/.test(raw) || raw === `"${REDACTED}"`)
      continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      // Torn or invalid JSON: the quoted strings in it are the best guess.
      value = [...raw.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((q) => q[1]!);
    }
    found.push(...leaves(value));
    out += `${text.slice(copied, start)}"${REDACTED}"`;
    copied = end;
    re.lastIndex = end;
  }
  return out + text.slice(copied);
}

/** Where the JSON value starting at `i` ends (exclusive); tolerant of torn input. */
function jsonValueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') {
    for (let j = i + 1; j < text.length; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === '"') return j + 1;
    }
    return text.length;
  }
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const ch = text[j];
      if (ch === '"') {
        for (j++; j < text.length && text[j] !== '"'; j++) if (text[j] === '\\') j++;
      } else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return text.length;
  }
  const m = /^[^,}\]\s]+/.exec(text.slice(i, i + 200));
  return m ? i + m[0].length : i;
}

// YAML block style: "key: value" lines, and "key:" followed by a more indented block.
function yamlBlockPass(text: string, found: string[]): string {
  const lines = text.split('\n');
  const line = /^(\s*(?:-\s+)?)(["']?)([A-Za-z0-9_.-]+)\2\s*:(?:\s+(.*))?$/;
  for (let i = 0; i < lines.length; i++) {
    const m = line.exec(lines[i]!);
    if (!m || !isSecretKey(m[3]!)) continue;
    const value = (m[4] ?? '').trim();
    if (value === '') {
      if (CONTAINER_KEY.test(m[3]!)) continue;
      // A block value: the lines indented deeper (or "- " items at the same indent).
      const indent = m[1]!.length;
      for (let j = i + 1; j < lines.length; j++) {
        const l = lines[j]!;
        if (l.trim() === '') continue;
        const ind = l.length - l.trimStart().length;
        if (ind < indent || (ind === indent && !l.trimStart().startsWith('- '))) break;
        const scalar = l
          .trim()
          .replace(/^-\s+/, '')
          .replace(/^["']?[A-Za-z0-9_.-]+["']?\s*:\s*/, '');
        if (scalar !== '') found.push(unquote(scalar));
        lines[j] = `${l.slice(0, ind)}${REDACTED}`;
        i = j;
      }
      continue;
    }
    if (value.includes(REDACTED) || NOT_SECRET.test(value)) continue;
    if ((value.startsWith('{') && CONTAINER_KEY.test(m[3]!)) || value === '{' || value === '[') continue;
    found.push(...flowScalars(value));
    lines[i] = `${m[1]}${m[2]}${m[3]}${m[2]}: ${REDACTED}`;
  }
  return lines.join('\n');
}

// YAML flow style and inline maps: "{user: u, password: x}".
function flowPass(text: string, found: string[]): string {
  const re = /([{,]\s*)(["']?)([A-Za-z0-9_.-]+)\2\s*:\s+(\{[^{}\n]*\}|\[[^[\]\n]*\]|[^,{}[\]\n]+)/g;
  return text.replace(re, (all, lead: string, q: string, key: string, value: string) => {
    const v = value.trim();
    if (
      !isSecretKey(key) ||
      v.includes(REDACTED) ||
      NOT_SECRET.test(v) ||
      (v.startsWith('{') && CONTAINER_KEY.test(key))
    )
      return all;
    found.push(...flowScalars(v));
    return `${lead}${q}${key}${q}: ${REDACTED}`;
  });
}

// key=value, as in logs and environment dumps.
function keyEqualsPass(text: string, found: string[]): string {
  return text.replace(/\b([A-Za-z0-9_.-]+)=("[^"\n]*"|'[^'\n]*'|[^\s&;,]+)/g, (all, key: string, value: string) => {
    if (!isSecretKey(key) || value.includes(REDACTED) || NOT_SECRET.test(value)) return all;
    found.push(unquote(value));
    return `${key}=${REDACTED}`;
  });
}

/** The scalars of a one-line YAML value: a plain or quoted scalar, or those inside a flow collection. */
function flowScalars(value: string): string[] {
  if (!/^[{[]/.test(value)) return [unquote(value.replace(/\s+#.*$/, ''))];
  return value
    .split(/[{}[\],]/)
    .map((part) => part.replace(/^\s*["']?[A-Za-z0-9_.-]+["']?\s*:\s*/, '').trim())
    .filter((s) => s !== '')
    .map(unquote);
}

function unquote(s: string): string {
  const t = s.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) {
    try {
      return t.startsWith('"') ? (JSON.parse(t) as string) : t.slice(1, -1).replace(/''/g, "'");
    } catch {
      return t.slice(1, -1);
    }
  }
  return t;
}
