// Decoding a plugin's stdout the way client-go's exec authenticator does
// (refreshCredsLocked), returning client-go's own error for the first thing it
// would refuse. Checks use the finer helpers below to judge each property on
// its own, so one defect does not hide another.
import { parse as parseYaml } from 'yaml';
import { checkKeyPair } from './certificate.ts';
import { EXEC_GROUP, type ExecCredential, type ExecCredentialStatus } from './types.ts';

export type Decoded = { ok: true; credential: ExecCredential } | { ok: false; error: string; parsed?: unknown };

/** client-go's verdict on stdout for a plugin configured with `configured`. */
export function decodeExecCredential(stdout: string, configured: string): Decoded {
  const parsed = parseStdoutLikeClientGo(stdout);
  if (!parsed.ok) return { ok: false, error: `decoding stdout: ${parsed.error}` };
  const o = parsed.value;
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  // The decoder fills a missing kind from the object it decodes into (ExecCredential), and a
  // missing apiVersion from its internal version, which then fails the version comparison.
  const kind = typeof o.kind === 'string' && o.kind ? o.kind : 'ExecCredential';
  if (!apiVersion) {
    return {
      ok: false,
      parsed: o,
      error: `exec plugin is configured to use API version ${configured}, plugin returned version ${EXEC_GROUP}/__internal`,
    };
  }
  const [group, version] = splitGroupVersion(apiVersion);
  // The scheme knows ExecCredential in v1 and v1beta1 of the group; anything else is "not registered".
  if (group !== EXEC_GROUP || (version !== 'v1' && version !== 'v1beta1') || kind !== 'ExecCredential') {
    return {
      ok: false,
      parsed: o,
      error: `decoding stdout: no kind "${kind}" is registered for version "${apiVersion}" in scheme`,
    };
  }
  const ts = statusTimestamp(o);
  if (ts !== undefined && typeof ts !== 'string') {
    return {
      ok: false,
      parsed: o,
      error: `decoding stdout: json: cannot unmarshal ${goJsonType(ts)} into Go struct field ExecCredentialStatus.status.expirationTimestamp of type string`,
    };
  }
  if (ts !== undefined && !isRfc3339(ts)) {
    return {
      ok: false,
      parsed: o,
      error: `decoding stdout: parsing time "${ts}" as "2006-01-02T15:04:05Z07:00": cannot parse as RFC 3339`,
    };
  }
  if (apiVersion !== configured) {
    return {
      ok: false,
      parsed: o,
      error: `exec plugin is configured to use API version ${configured}, plugin returned version ${apiVersion}`,
    };
  }
  const status = o.status;
  if (status === undefined || status === null)
    return { ok: false, parsed: o, error: "exec plugin didn't return a status field" };
  if (typeof status !== 'object' || Array.isArray(status))
    return { ok: false, parsed: o, error: 'decoding stdout: status must be an object' };
  const s = status as Record<string, unknown>;
  for (const k of ['token', 'clientCertificateData', 'clientKeyData'] as const) {
    if (s[k] !== undefined && s[k] !== null && typeof s[k] !== 'string')
      return { ok: false, parsed: o, error: `decoding stdout: status.${k} must be a string` };
  }
  const token = (s.token as string | undefined) ?? '';
  const cert = (s.clientCertificateData as string | undefined) ?? '';
  const key = (s.clientKeyData as string | undefined) ?? '';
  if (!token && !cert && !key)
    return { ok: false, parsed: o, error: "exec plugin didn't return a token or cert/key pair" };
  if (!cert !== !key) return { ok: false, parsed: o, error: 'exec plugin returned only certificate or key, not both' };
  if (cert && key) {
    const pairError = checkKeyPair(cert, key);
    if (pairError) return { ok: false, parsed: o, error: pairError };
  }
  const out: ExecCredentialStatus = {};
  if (token) out.token = token;
  if (cert) out.clientCertificateData = cert;
  if (key) out.clientKeyData = key;
  if (typeof ts === 'string') out.expirationTimestamp = ts;
  const spec = (o.spec && typeof o.spec === 'object' ? o.spec : { interactive: false }) as ExecCredential['spec'];
  return { ok: true, credential: { apiVersion, kind: 'ExecCredential', spec, status: out } };
}

const GO_TYPEMETA_STRUCT =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * What client-go's universal decoder makes of stdout: JSON when it starts with
 * '{' (and then nothing may follow the object), otherwise YAML. So a YAML
 * ExecCredential works with kubectl (seen with kubectl 1.32 and a 1.37 build),
 * while a banner line before the JSON turns the whole output into one YAML string.
 */
export function parseStdoutLikeClientGo(
  text: string,
): { ok: true; value: Record<string, unknown>; format: 'json' | 'yaml' } | { ok: false; error: string } {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const j = parseJsonObject(trimmed);
    return j.ok ? { ok: true, value: j.value, format: 'json' } : j;
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (e) {
    return { ok: false, error: `error converting YAML to JSON: ${(e as Error).message.split('\n')[0]}` };
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return { ok: true, value: value as Record<string, unknown>, format: 'yaml' };
  // Empty output is YAML null, which decodes to an empty object (and then fails the version check).
  if (value === null || value === undefined) return { ok: true, value: {}, format: 'yaml' };
  const got = Array.isArray(value) ? 'array' : typeof value;
  return {
    ok: false,
    error: `couldn't get version/kind; json parse error: json: cannot unmarshal ${got} into Go value of type ${GO_TYPEMETA_STRUCT}`,
  };
}

/** Strict: the whole of stdout (surrounding whitespace aside) must be one JSON object. */
export function parseJsonObject(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, error: 'stdout is empty' };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (e) {
    return { ok: false, error: `couldn't get version/kind; json parse error: ${(e as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      error: `couldn't get version/kind; json parse error: expected a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`,
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * Finds the JSON object inside noisy stdout (a banner before it, a log line after),
 * so a check can say "your credential is fine but line 1 is not JSON".
 */
export function findEmbeddedJsonObject(
  text: string,
): { value: Record<string, unknown>; before: string; after: string } | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  for (let end = text.lastIndexOf('}'); end > start; end = text.lastIndexOf('}', end - 1)) {
    try {
      const value = JSON.parse(text.slice(start, end + 1));
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        return { value, before: text.slice(0, start), after: text.slice(end + 1) };
      }
    } catch {
      // keep shrinking
    }
  }
  return undefined;
}

/**
 * RFC 3339 as Go's time.Parse(time.RFC3339) accepts it (metav1.Time): a 'T'
 * separator, optional fractional seconds, 'Z' or ±hh:mm, and real calendar values.
 */
export function isRfc3339(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$/.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || se > 59) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d < 1 || d > days) return false;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return false;
  return true;
}

/**
 * What keeps `s` from being RFC 3339 as Go reads it, in a few words for a
 * message: "no time zone", "a space instead of the T", …; "not in the
 * 2006-01-02T15:04:05Z07:00 layout" when nothing more precise applies.
 */
export function rfc3339Defect(s: string): string {
  if (s.trim() === '') return 'empty';
  if (s !== s.trim()) return 'spaces around it';
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (!date) return 'no YYYY-MM-DD date at its start';
  const sep = s[10];
  if (sep === undefined) return 'a date with no time';
  if (sep === ' ') return 'a space instead of the T between date and time';
  if (sep !== 'T') return `${JSON.stringify(sep)} instead of the T between date and time`;
  const time = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?/.exec(s.slice(11));
  if (!time) return 'no hh:mm:ss time after the T';
  const zone = s.slice(11 + time[0].length);
  if (zone === '') return 'no time zone (Z or ±hh:mm)';
  if (!/^(Z|[+-]\d{2}:\d{2})$/.test(zone)) return `time zone ${JSON.stringify(zone)} (want Z or ±hh:mm)`;
  return 'a date or time out of range';
}

export function splitGroupVersion(apiVersion: string): [string, string] {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
}

function statusTimestamp(o: Record<string, unknown>): unknown {
  const s = o.status;
  if (!s || typeof s !== 'object') return undefined;
  const ts = (s as Record<string, unknown>).expirationTimestamp;
  return ts === null ? undefined : ts;
}

function goJsonType(v: unknown): string {
  return Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v;
}
