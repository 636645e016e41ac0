// What the kubelet makes of a plugin's stdout (pkg/credentialprovider/plugin
// execPlugin.ExecPlugin + pluginProvider.provide), check by check in its
// order: exactly one JSON value whose apiVersion (read case-insensitively by
// encoding/json) equals the provider's apiVersion; then the strict decoder:
// kind CredentialProviderResponse, field types (a bad cacheDuration fails
// here), unknown and duplicate fields; then cacheKeyType. Every failure means
// the kubelet uses no credentials from this run.
import { parseGoDurationNs } from './goduration.ts';
import { JsonSyntaxError, jsonTypeName, parseFirstJsonValue, type JsonValue } from './jsonvalue.ts';
import {
  CACHE_KEY_TYPES,
  PROTOCOL_API_VERSIONS,
  type AuthConfig,
  type CredentialProviderRequest,
  type CredentialProviderResponse,
} from './types.ts';

export type DecodeFailureReason =
  | 'json'
  | 'multipleObjects'
  | 'apiVersion'
  | 'kind'
  | 'unknownField'
  | 'duplicateField'
  | 'cacheKeyType'
  | 'cacheDuration'
  | 'type';

export type DecodeResult =
  | { ok: true; response: CredentialProviderResponse }
  | {
      ok: false;
      error: string;
      reason: DecodeFailureReason;
      /** For reason cacheKeyType: the decoded response (the kubelet checks the token-as-password rule before it). */
      response?: CredentialProviderResponse;
    };

/** The kubelet's log line for everything its strict decoder rejects; it hides the detail because it may hold secrets. */
export const KUBELET_DECODE_ERROR = 'error decoding credential provider plugin response from stdout';

const WS = /^[ \t\r\n]*$/;

export function decodeResponse(stdout: string, expectedApiVersion: string): DecodeResult {
  const fail = (reason: DecodeFailureReason, error: string): DecodeResult => ({ ok: false, reason, error });
  const gvkFail = (reason: DecodeFailureReason, detail: string) =>
    fail(
      reason,
      `${detail} (kubelet: "error reading GVK from response: couldn't get version/kind; json parse error: …")`,
    );

  let root: JsonValue;
  try {
    const first = parseFirstJsonValue(stdout);
    const rest = stdout.slice(first.end);
    if (!WS.test(rest)) {
      const after = rest.trimStart();
      const second =
        after.startsWith('{') || after.startsWith('[')
          ? 'another JSON value'
          : `extra output ${JSON.stringify(after.slice(0, 40))}`;
      return gvkFail(
        after.startsWith('{') ? 'multipleObjects' : 'json',
        `stdout must hold exactly one JSON object, but ${second} follows it at byte ${Buffer.byteLength(stdout.slice(0, first.end + (rest.length - after.length)))}; write logs to stderr`,
      );
    }
    root = first.value;
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    const empty = stdout.trim() === '';
    return gvkFail(
      'json',
      empty
        ? 'stdout is empty: the plugin must print one CredentialProviderResponse JSON object'
        : `stdout is not JSON: ${e.message} at byte ${e.offset}; write logs to stderr`,
    );
  }
  if (root.type !== 'object' && root.type !== 'null') {
    return gvkFail('json', `stdout holds a JSON ${jsonTypeName(root)}, not an object`);
  }

  // json.DefaultMetaFactory.Interpret: encoding/json into {apiVersion, kind string}: keys match
  // case-insensitively, the last one wins, and a non-string under either is a type error (found by the
  // differential test against the kubelet's own code: a numeric kind fails here, before any apiVersion check).
  const pairs = root.type === 'object' ? root.pairs : [];
  let apiVersion = '';
  for (const [k, v] of pairs) {
    const field = k.toLowerCase();
    if (field !== 'apiversion' && field !== 'kind') continue;
    if (v.type !== 'string' && v.type !== 'null')
      return gvkFail('json', `${field === 'kind' ? 'kind' : 'apiVersion'} must be a string, not a ${jsonTypeName(v)}`);
    if (field === 'apiversion' && v.type === 'string') apiVersion = v.value;
  }
  if (apiVersion.split('/').length > 2)
    return fail('apiVersion', `error reading GVK from response: unexpected GroupVersion string: ${apiVersion}`);
  if (apiVersion !== expectedApiVersion) {
    return fail(
      'apiVersion',
      `apiVersion from credential plugin response did not match expected apiVersion:${expectedApiVersion}, actual apiVersion:${apiVersion}`,
    );
  }

  // From here on the kubelet only logs KUBELET_DECODE_ERROR; say what it hides.
  const hidden = (reason: DecodeFailureReason, detail: string) =>
    fail(reason, `${detail} (kubelet: "${KUBELET_DECODE_ERROR}")`);
  const strictPairs = root.type === 'object' ? root.pairs : [];
  const kinds = strictPairs.filter(([k]) => k.toLowerCase() === 'kind');
  const kind = kinds.length > 0 ? kinds[kinds.length - 1]![1] : undefined;
  if (!kind || kind.type === 'null' || (kind.type === 'string' && kind.value === ''))
    return hidden('kind', 'Object \'Kind\' is missing: kind must be "CredentialProviderResponse"');
  if (kind.type !== 'string') return hidden('type', `kind must be a string, not a ${jsonTypeName(kind)}`);
  if (kind.value !== 'CredentialProviderResponse')
    return hidden('kind', `kind is ${JSON.stringify(kind.value)}, expected "CredentialProviderResponse"`);
  if (!(PROTOCOL_API_VERSIONS as readonly string[]).includes(apiVersion)) {
    return hidden(
      'apiVersion',
      `apiVersion ${JSON.stringify(apiVersion)} is not a credentialprovider.kubelet.k8s.io version the kubelet knows`,
    );
  }

  const walked = walkResponse(strictPairs);
  if (walked.fatal) return hidden(walked.fatal.reason, walked.fatal.detail);
  if (walked.strict) return hidden(walked.strict.reason, walked.strict.detail);
  const r = walked.response;
  if (!(CACHE_KEY_TYPES as readonly string[]).includes(r.cacheKeyType)) {
    return {
      ...(fail(
        'cacheKeyType',
        `credential provider plugin did not return a valid cacheKeyType: ${r.cacheKeyType} (must be one of ${CACHE_KEY_TYPES.join(', ')}; the kubelet uses no credentials from this response)`,
      ) as { ok: false; error: string; reason: DecodeFailureReason }),
      response: r,
    };
  }
  return { ok: true, response: r };
}

interface Walked {
  response: CredentialProviderResponse;
  fatal?: { reason: DecodeFailureReason; detail: string };
  strict?: { reason: DecodeFailureReason; detail: string };
}

// Strict decode into CredentialProviderResponse: case-sensitive names,
// unknown/duplicate fields are strict errors, wrong types are fatal.
function walkResponse(pairs: [string, JsonValue][]): Walked {
  const out: Walked = { response: { apiVersion: '', kind: '', cacheKeyType: '' } };
  const strict = (reason: DecodeFailureReason, detail: string) => {
    out.strict ??= { reason, detail };
  };
  const fatal = (reason: DecodeFailureReason, detail: string) => {
    out.fatal ??= { reason, detail };
  };
  const typeErr = (path: string, v: JsonValue, want: string) =>
    fatal('type', `json: cannot unmarshal ${jsonTypeName(v)} into ${path} of type ${want}`);
  const seen = new Set<string>();
  for (const [key, v] of pairs) {
    if (seen.has(key)) strict('duplicateField', `strict decoding error: duplicate field ${JSON.stringify(key)}`);
    seen.add(key);
    switch (key) {
      case 'apiVersion':
      case 'kind':
        if (v.type === 'string') out.response[key] = v.value;
        else if (v.type !== 'null') typeErr(key, v, 'string');
        break;
      case 'cacheKeyType':
        if (v.type === 'string') out.response.cacheKeyType = v.value;
        else if (v.type !== 'null') typeErr(key, v, 'string');
        break;
      case 'cacheDuration':
        if (v.type === 'null') break;
        if (v.type !== 'string') {
          fatal('cacheDuration', `cacheDuration must be a duration string such as "5m", not a ${jsonTypeName(v)}`);
          break;
        }
        {
          const d = parseGoDurationNs(v.value);
          if (!d.ok) fatal('cacheDuration', `cacheDuration: ${d.error}`);
          else out.response.cacheDuration = v.value;
        }
        break;
      case 'auth':
        if (v.type === 'null') break;
        if (v.type !== 'object') {
          typeErr('auth', v, 'map[string]AuthConfig');
          break;
        }
        out.response.auth = walkAuth(v.pairs, strict, typeErr);
        break;
      default:
        strict(
          'unknownField',
          `strict decoding error: unknown field ${JSON.stringify(key)}${suggest(key, ['apiVersion', 'kind', 'cacheKeyType', 'cacheDuration', 'auth'])}`,
        );
    }
  }
  return out;
}

function walkAuth(
  pairs: [string, JsonValue][],
  strict: (r: DecodeFailureReason, d: string) => void,
  typeErr: (path: string, v: JsonValue, want: string) => void,
): Record<string, AuthConfig> {
  const auth: Record<string, AuthConfig> = {};
  const seenKeys = new Set<string>();
  for (const [image, entry] of pairs) {
    if (seenKeys.has(image))
      strict('duplicateField', `strict decoding error: duplicate field ${JSON.stringify(`auth.${image}`)}`);
    seenKeys.add(image);
    if (entry.type === 'null') {
      auth[image] = { username: '', password: '' };
      continue;
    }
    if (entry.type !== 'object') {
      typeErr(`auth.${image}`, entry, 'AuthConfig');
      continue;
    }
    const cfg: AuthConfig = { username: '', password: '' };
    const seenFields = new Set<string>();
    for (const [f, v] of entry.pairs) {
      const path = `auth.${image}.${f}`;
      if (seenFields.has(f)) strict('duplicateField', `strict decoding error: duplicate field ${JSON.stringify(path)}`);
      seenFields.add(f);
      if (f === 'username' || f === 'password') {
        if (v.type === 'string') cfg[f] = v.value;
        else if (v.type !== 'null') typeErr(path, v, 'string');
      } else {
        strict(
          'unknownField',
          `strict decoding error: unknown field ${JSON.stringify(path)}${suggest(f, ['username', 'password'])}`,
        );
      }
    }
    auth[image] = cfg;
  }
  return auth;
}

function suggest(key: string, known: string[]): string {
  const near = known.find((k) => k.toLowerCase() === key.toLowerCase());
  return near ? ` (field names are case-sensitive: ${JSON.stringify(near)})` : '';
}

/**
 * The request bytes the kubelet writes to the plugin's stdin: Go's JSON
 * encoding of the versioned type (kind, apiVersion, image, then the v1-only
 * service-account fields when set), HTML-escaped, with a trailing newline.
 */
export function encodeRequest(req: CredentialProviderRequest): string {
  const v1 = req.apiVersion === 'credentialprovider.kubelet.k8s.io/v1';
  const body: Record<string, unknown> = {
    kind: req.kind ?? 'CredentialProviderRequest',
    apiVersion: req.apiVersion,
    image: req.image,
  };
  if (v1 && req.serviceAccountToken) body.serviceAccountToken = req.serviceAccountToken;
  if (v1 && req.serviceAccountAnnotations && Object.keys(req.serviceAccountAnnotations).length > 0) {
    const sorted = Object.keys(req.serviceAccountAnnotations).sort();
    body.serviceAccountAnnotations = Object.fromEntries(sorted.map((k) => [k, req.serviceAccountAnnotations![k]]));
  }
  return `${goJson(body)}\n`;
}

function goJson(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
