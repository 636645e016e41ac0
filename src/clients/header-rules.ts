// Whether each real client can send a token as `Authorization: Bearer <token>`.
// The exec plugin contract hands the token to the client, which sends it as a
// bearer token in the Authorization header (KEP-541; RFC 6750 §2.1), so a
// token must be a header field value (RFC 9110 §5.5 / RFC 7230 §3.2:
// visible characters, SP, HTAB and obs-text bytes 0x80–0xFF). Each client
// enforces its own version of that rule before anything is sent:
//   - Go (kubectl, client-go): net/http Transport.roundTrip refuses a value
//     that fails httpguts.ValidHeaderFieldValue (any control byte but HTAB, or
//     DEL) with "net/http: invalid header field value for \"Authorization\"".
//     Nothing is trimmed first. Other bytes go out as they are: a non-ASCII
//     character is sent as its UTF-8 bytes.
//   - @kubernetes/client-node (undici fetch): the Headers init converts the
//     value to a ByteString (a character above U+00FF throws "Cannot convert
//     argument to a ByteString"), trims leading and trailing HTTP whitespace
//     (HTAB, LF, CR, SP: a trailing newline is dropped, not refused), refuses
//     NUL, CR and LF left inside it; then undici's request refuses any other
//     control character or DEL (lib/core/util.js headerCharRegex, lifted from
//     Node's _http_common checkInvalidHeaderChar): "invalid authorization
//     header". Characters U+0080–U+00FF go out as one Latin-1 byte each.
//   - Python (http.client putheader, under urllib3): the value is encoded as
//     Latin-1 (UnicodeEncodeError above U+00FF), then refused only for a LF
//     not followed by SP/HTAB or a CR not followed by SP/HTAB/LF
//     (_is_illegal_header_value). Other control characters are sent, and the
//     server refuses the request (kube-apiserver's net/http server: 400
//     "invalid header value"; Node's llhttp, credprov's endpoint, the same).
import type { ClientName } from './probe.ts';

export interface HeaderProblem {
  /** Offset of the offending character in the token (UTF-16 code units, as JSON strings count). */
  offset: number;
  /** The character as an escape, never the token: U+000A. */
  char: string;
  /** What the client does about it. */
  refusal: 'client-refuses' | 'server-refuses';
  why: string;
}

export const escapeChar = (code: number): string => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** A control character other than HTAB, or DEL: what no header field value may hold (RFC 9110 §5.5). */
const CTL = /[\u0000-\u0008\u000a-\u001f\u007f]/;
const NOT_LATIN1 = /[^\u0000-\u00ff]/;
/** http.client's _is_illegal_header_value, as Python writes it: rb'\n(?![ \t])|\r(?![ \t\n])'. */
const PY_ILLEGAL = /\n(?![ \t])|\r(?![ \t\n])/;

/** The first character of token[0, end) that `re` matches, as a problem; undefined when none does. */
function find(
  token: string,
  re: RegExp,
  refusal: HeaderProblem['refusal'],
  why: string,
  end = token.length,
): HeaderProblem | undefined {
  const i = token.slice(0, end).search(re);
  return i < 0 ? undefined : { offset: i, char: escapeChar(token.codePointAt(i)!), refusal, why };
}

/** Go net/http (kubectl, client-go): httpguts.ValidHeaderFieldValue on "Bearer <token>", untrimmed. */
function goRule(token: string): HeaderProblem | undefined {
  return find(token, CTL, 'client-refuses', 'Go net/http: httpguts.ValidHeaderFieldValue refuses control characters');
}

/** undici fetch (client-node): ByteString, then trim HTTP whitespace, then no control character but HTAB. */
function undiciRule(token: string): HeaderProblem | undefined {
  const trimmedEnd = token.replace(/[\t\n\r ]+$/, '').length;
  return (
    find(token, NOT_LATIN1, 'client-refuses', 'undici fetch: a header value is a ByteString (nothing above U+00FF)') ??
    find(token, CTL, 'client-refuses', 'undici: control characters are not header field-vchars', trimmedEnd)
  );
}

/** Python http.client: Latin-1, then only bare CR/LF are refused; other control characters reach the server. */
function pythonRule(token: string): HeaderProblem | undefined {
  return (
    find(
      token,
      NOT_LATIN1,
      'client-refuses',
      "http.client encodes header values as Latin-1 ('latin-1' codec can't encode)",
    ) ??
    find(
      token,
      PY_ILLEGAL,
      'client-refuses',
      'http.client _is_illegal_header_value: a line break not followed by SP/HTAB',
    ) ??
    find(
      token,
      CTL,
      'server-refuses',
      'http.client sends it; the API server refuses a header value with a control character (400)',
    )
  );
}

const RULES: Record<ClientName, (token: string) => HeaderProblem | undefined> = {
  kubectl: goRule,
  'client-go': goRule,
  'client-node': undiciRule,
  python: pythonRule,
};

/** What stops `client` from sending `token` as a bearer token, if anything. */
export function headerProblem(client: ClientName, token: string): HeaderProblem | undefined {
  return RULES[client](token);
}

/**
 * Whether kube-apiserver reads the token the client sent: its bearer token
 * authenticator trims the Authorization value, splits it on single spaces and
 * takes the second part, so a space inside the token (or a leading tab,
 * which Go's TrimSpace keeps inside) leaves it another token, or none.
 */
export function apiServerProblem(token: string): HeaderProblem | undefined {
  const kept = token.replace(/[ \t\r\n]+$/, '');
  return find(
    kept,
    /^\t| /,
    'server-refuses',
    'kube-apiserver reads "Bearer <token>" split on spaces (pkg/authentication/request/bearertoken): it gets another token, or none',
  );
}

/**
 * The token as clients quote it in their errors, for redaction: as is,
 * trimmed (what fetch sends), JSON-escaped, and as Python's repr of the
 * Latin-1 bytes ("Invalid header value b'Bearer …\\n'").
 */
export function tokenSpellings(token: string): string[] {
  const pyRepr = [...token]
    .map((ch) => {
      const c = ch.codePointAt(0)!;
      if (ch === '\\' || ch === "'") return `\\${ch}`;
      if (ch === '\n') return '\\n';
      if (ch === '\r') return '\\r';
      if (ch === '\t') return '\\t';
      if (c < 0x20 || (c >= 0x7f && c <= 0xff)) return `\\x${c.toString(16).padStart(2, '0')}`;
      return ch;
    })
    .join('');
  return [...new Set([token, token.trim(), JSON.stringify(token).slice(1, -1), pyRepr])];
}
