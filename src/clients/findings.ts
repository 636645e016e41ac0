// What a plugin's answer is like, as each client reads it. Each finding names
// a row of the client decoding table (decoding.ts) and carries the plugin's
// own value and its actual defect (`detail`): a prediction and its
// explanation quote the answer credprov saw, never the example a row was
// found with.
//
// The clients do not read an answer alike, so each has a reader here that
// follows its code (and the differential tests, src/differential/exec.test.ts
// and, for kube-rs, field-probes.test.ts, hold it to the real client on
// generated answers; fabric8 apart):
//   - client-go (and kubectl): the universal decoder (JSON, or YAML), into the
//     typed ExecCredential, so a field of another JSON type is an error; then
//     the version, the status, a token and/or a certificate pair, both sent;
//   - client-node: JSON.parse, then plain property reads: a falsy answer is
//     no credential, a status that is no object holds nothing, values count
//     when truthy, and fetch takes a certificate and key only as strings;
//   - Python: json.loads, key presence ('token' in status wins outright,
//     whatever its value: "Bearer %s"), the apiVersion compared as is.
//   - kube-rs and fabric8: a typed decode (serde_saphyr; Jackson or
//     SnakeYAML) by the JSON kinds each field takes (their rules' fieldKinds,
//     typed-reading.ts): a number is a token's text, an object fails the
//     decode; then each one's own order (kube-rs: the certificate pair before
//     the token, jiff for the expiry; fabric8: the apiVersion, then any token,
//     even "", before the certificate).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { checkKeyPair } from '../api/exec/certificate.ts';
import { isRfc3339, parseStdoutLikeClientGo, rfc3339Defect } from '../api/exec/credential.ts';
import { isSupportedExecApiVersion } from '../api/exec/types.ts';
import { describeEnd } from '../plugin/go-exec.ts';
import type { AnswerTrait } from './decoding-model.ts';
import { FABRIC8_RULES } from './fabric8/fabric8-rules.ts';
import { escapeChar, headerProblem } from './header-rules.ts';
import type { ExecClientName } from './probe.ts';
import { parseJiffTimestamp } from './kube-rs/jiff-timestamp.ts';
import { KUBE_RS_RULES } from './kube-rs/kube-rs-rules.ts';
import { KUBE_APISERVER_MAX_HEADER_BYTES } from './scripted-endpoint.ts';
import { decodeTyped, type TypedDecode } from './typed-reading.ts';

export interface Finding {
  trait: AnswerTrait;
  /** The plugin's value and its defect, one line: `expirationTimestamp is "2026-11-29T01:28:26" (no time zone: not RFC 3339)`. */
  detail: string;
  /** The clients whose reading meets this (all when absent). */
  clients?: readonly ExecClientName[];
}

export interface AnsweredRun {
  exitCode?: number;
  signal?: string;
  timedOut: boolean;
  spawnError?: string;
  stdout: string;
  stderr?: string;
  durationMs?: number;
  /** Processes the run left behind; one holding stdout makes every client wait for it. */
  strays?: Array<{ pid?: number; holds: readonly string[] }>;
}

type Obj = Record<string, unknown>;
const F = (trait: AnswerTrait, detail: string): Finding => ({ trait, detail });

const show = (v: unknown, max = 60): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > max ? `${text.slice(0, max)}…` : text;
};
const jsonType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const has = (o: Obj, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Before any client reads stdout: it must end, and exit 0. */
function ending(run: AnsweredRun): Finding[] | undefined {
  // Every client reads stdout to its end and has no timeout of its own.
  const holder = run.strays?.find((s) => s.holds.includes('stdout'));
  if (run.timedOut || holder)
    return [
      F(
        'no-answer',
        holder
          ? `the plugin exited, but left ${holder.pid ? `pid ${holder.pid}` : 'a process'} holding its stdout`
          : `the plugin did not answer${run.durationMs ? ` within ${Math.round(run.durationMs)}ms` : ''}`,
      ),
    ];
  if (run.exitCode !== 0 || run.signal) {
    const said = run.stderr?.trim().split('\n').pop();
    return [
      F(
        'exit-nonzero',
        `the plugin ${describeEnd(run)}${said ? ` (stderr: ${show(said, 100)})` : ' with nothing on stderr'}`,
      ),
    ];
  }
  return undefined;
}

const BOM = F('bom', 'stdout starts with a UTF-8 byte-order mark (U+FEFF)');

/** JSON.parse / json.loads of stdout as it is (surrounding whitespace allowed, a byte-order mark not). */
function strictJson(stdout: string): { ok: true; value: unknown } | { ok: false } {
  if (stdout.startsWith('\uFEFF')) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(stdout) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Not JSON to a JSON-only client: a BOM, YAML client-go would take, or anything else. */
function notJson(stdout: string): Finding[] {
  if (stdout.startsWith('\uFEFF')) return [BOM];
  const go = parseStdoutLikeClientGo(stdout);
  if (go.ok && go.format === 'yaml' && Object.keys(go.value).length > 0)
    return [F('yaml', 'the ExecCredential is printed as YAML, not JSON')];
  return [F('not-json', `stdout is not one JSON object: ${show(stdout.trim(), 80)}`)];
}

function versionFinding(apiVersion: unknown, configured: string): Finding | undefined {
  if (apiVersion === configured) return undefined;
  if (typeof apiVersion !== 'string' || apiVersion === '')
    return F(
      'apiVersion-missing',
      apiVersion === undefined ? 'the ExecCredential has no apiVersion' : `apiVersion is ${show(apiVersion)}`,
    );
  if (!isSupportedExecApiVersion(apiVersion))
    return F('apiVersion-unknown', `apiVersion is ${show(apiVersion)}, a version no client knows`);
  return F('apiVersion-other', `apiVersion is ${show(apiVersion)}, but the kubeconfig says ${configured}`);
}

function timestampFinding(ts: unknown): Finding | undefined {
  if (typeof ts !== 'string') return undefined;
  if (!isRfc3339(ts))
    return F('timestamp-not-rfc3339', `expirationTimestamp is ${show(ts)} (${rfc3339Defect(ts)}: not RFC 3339)`);
  if (Date.parse(ts) <= Date.now()) return F('expired', `expirationTimestamp ${show(ts)} is already past`);
  return undefined;
}

/** Why TLS cannot read a certificate or key it is given, each on its own (client-node hands both over, paired or not). */
function pemProblem(cert: string | undefined, key: string | undefined): string | undefined {
  if (cert !== undefined) {
    try {
      new X509Certificate(cert);
    } catch {
      return `clientCertificateData is not a PEM certificate: ${show(cert, 30)}`;
    }
  }
  if (key !== undefined) {
    try {
      createPrivateKey(key);
    } catch {
      return `clientKeyData is not a PEM private key: ${show(key, 30)}`;
    }
  }
  return undefined;
}

/** A certificate and key that are both there: whether they make a TLS client certificate. */
function pairFindings(cert: string, key: string, token: boolean): Finding[] {
  const mismatch = checkKeyPair(cert, key);
  return [
    ...(mismatch ? [F('cert-key-mismatch', `the client certificate and key do not make a pair (${mismatch})`)] : []),
    token
      ? F('token-and-cert', 'status holds a token and a client certificate')
      : F('cert-only', 'status holds a client certificate and its key, no token'),
  ];
}

/** client-go and kubectl: the universal decoder into the typed ExecCredential. */
function goReading(stdout: string, configured: string): Finding[] {
  const parsed = parseStdoutLikeClientGo(stdout);
  if (!parsed.ok) return [F('not-json', `stdout is not one JSON or YAML object: ${show(stdout.trim(), 80)}`)];
  const o = parsed.value;
  const out: Finding[] = [];
  if (stdout.startsWith('\uFEFF')) out.push(BOM);
  if (parsed.format === 'yaml' && Object.keys(o).length > 0)
    out.push(F('yaml', 'the ExecCredential is printed as YAML, not JSON'));
  // Fields of the Go struct: a JSON value of another type fails the decode (null leaves the zero value).
  const wrong = (path: string, v: unknown, want: 'string' | 'object' | 'boolean') => {
    if (v === undefined || v === null) return;
    const ok = want === 'object' ? isObj(v) : typeof v === want;
    if (!ok)
      out.push(
        F(
          'field-wrong-type',
          `${path} is ${jsonType(v)} (${show(v, 40)}), not ${want === 'object' ? 'an object' : `a ${want}`}`,
        ),
      );
  };
  wrong('apiVersion', o.apiVersion, 'string');
  wrong('kind', o.kind, 'string');
  wrong('spec', o.spec, 'object');
  if (isObj(o.spec)) {
    wrong('spec.interactive', o.spec.interactive, 'boolean');
    wrong('spec.cluster', o.spec.cluster, 'object');
  }
  wrong('status', o.status, 'object');
  const s = isObj(o.status) ? o.status : undefined;
  if (s) {
    wrong('status.expirationTimestamp', s.expirationTimestamp, 'string');
    wrong('status.clientCertificateData', s.clientCertificateData, 'string');
    wrong('status.clientKeyData', s.clientKeyData, 'string');
    if (s.token !== undefined && s.token !== null && typeof s.token !== 'string')
      out.push(F('token-not-string', `status.token is ${jsonType(s.token)} (${show(s.token)}), not a string`));
  }
  const version = versionFinding(typeof o.apiVersion === 'string' ? o.apiVersion : '', configured);
  if (version) out.push(version);
  if (typeof o.kind === 'string' && o.kind !== '' && o.kind !== 'ExecCredential')
    out.push(F('kind-wrong', `kind is ${show(o.kind)}`));
  else if (o.kind === undefined || o.kind === null || o.kind === '')
    out.push(F('kind-missing', o.kind === undefined ? 'the ExecCredential has no kind' : `kind is ${show(o.kind)}`));
  if (!s) {
    if (!isObj(o.status))
      out.push(
        F(
          'status-missing',
          o.status === undefined ? 'the ExecCredential has no status' : `status is ${show(o.status)}`,
        ),
      );
    return out;
  }
  const ts = timestampFinding(s.expirationTimestamp);
  if (ts) out.push(ts);
  const str = (k: string) => (typeof s[k] === 'string' ? (s[k] as string) : '');
  const token = str('token');
  const cert = str('clientCertificateData');
  const key = str('clientKeyData');
  if (!token && !cert && !key) {
    if (s.token === null || s.token === false || s.token === 0)
      out.push(F('token-falsy', `status.token is ${show(s.token)}, and there is no certificate`));
    else if (!out.some((f) => f.trait === 'token-not-string'))
      out.push(
        F(
          'no-credential',
          `status holds neither a token nor a certificate (its fields: ${Object.keys(s).join(', ') || 'none'})`,
        ),
      );
    return out;
  }
  if (cert && !key) out.push(F('cert-without-key', 'status holds clientCertificateData without clientKeyData'));
  else if (key && !cert) out.push(F('key-without-cert', 'status holds clientKeyData without clientCertificateData'));
  else if (cert && key) out.push(...pairFindings(cert, key, Boolean(token)));
  // A token the API server cannot read is no credential only when no certificate pair goes with it.
  if (token) out.push(...tokenFindings(token, { certificate: Boolean(cert && key), reader: 'client-go' }));
  return out;
}

/** @kubernetes/client-node: JSON.parse, then property reads (exec_auth.js getCredential/applyAuthentication). */
function nodeReading(stdout: string, configured: string): Finding[] {
  const parsed = strictJson(stdout);
  if (!parsed.ok) return notJson(stdout);
  const o = parsed.value;
  // `if (!credential) return;`: no credential, no error.
  if (!o) return [F('answer-falsy', `the answer is ${show(o)}`)];
  const out: Finding[] = [];
  if (isObj(o)) {
    // Never read, but named for the report: client-node ignores them.
    const v = versionFinding(o.apiVersion, configured);
    if (v) out.push(v);
    if (o.kind !== undefined && o.kind !== 'ExecCredential')
      out.push(
        o.kind === null || o.kind === ''
          ? F('kind-missing', `kind is ${show(o.kind)}`)
          : F('kind-wrong', `kind is ${show(o.kind)}`),
      );
  }
  const status = (o as Obj).status;
  // credential.status.clientCertificateData on an undefined or null status: a TypeError; on false or 5, undefined.
  if (status === undefined || status === null)
    return [
      ...out,
      F(
        'status-missing',
        isObj(o)
          ? status === undefined
            ? 'the ExecCredential has no status'
            : `status is ${show(status)}`
          : `the answer is ${show(o)}, not an object`,
      ),
    ];
  if (!isObj(status))
    return [...out, F('status-not-object', `status is ${show(status)}, not an object: it holds nothing`)];
  const s = status;
  const ts = timestampFinding(s.expirationTimestamp);
  if (ts) out.push(ts);
  // Values count when truthy; TLS takes a certificate and key as strings (or lists of them), and parses
  // whichever it is given, paired or not.
  const tlsValue = (name: string, v: unknown): string | Finding | undefined => {
    if (!v) return undefined;
    if (Array.isArray(v)) {
      if (v.length === 0) return undefined;
      if (v.every((x) => typeof x === 'string')) return v.join('\n');
    } else if (typeof v === 'string') return v;
    return F('cert-or-key-not-string', `status.${name} is ${jsonType(v)} (${show(v, 40)}), not a string`);
  };
  const certV = tlsValue('clientCertificateData', s.clientCertificateData);
  const keyV = tlsValue('clientKeyData', s.clientKeyData);
  for (const v of [certV, keyV]) if (typeof v === 'object') return [...out, v];
  const cert = certV as string | undefined;
  const key = keyV as string | undefined;
  const unreadable = pemProblem(cert, key);
  if (unreadable) return [...out, F('cert-key-mismatch', unreadable)];
  const token = s.token ? String(s.token) : '';
  if (s.token && typeof s.token !== 'string')
    out.push(F('token-not-string', `status.token is ${jsonType(s.token)} (${show(s.token)}), not a string`));
  if (!token) {
    if (!cert && !key) {
      out.push(
        s.token === null || s.token === false || s.token === 0
          ? F('token-falsy', `status.token is ${show(s.token)}, and there is no certificate`)
          : F(
              'no-credential',
              `status holds neither a token nor a certificate (its fields: ${Object.keys(s).join(', ') || 'none'})`,
            ),
      );
      return out;
    }
    if (cert && !key) out.push(F('cert-without-key', 'status holds clientCertificateData without clientKeyData'));
    else if (key && !cert) out.push(F('key-without-cert', 'status holds clientKeyData without clientCertificateData'));
  }
  const pair = typeof cert === 'string' && typeof key === 'string';
  if (pair) out.push(...pairFindings(cert, key, Boolean(token)));
  if (token) out.push(...tokenFindings(token, { certificate: pair, reader: 'client-node' }));
  return out;
}

/** Python's str() of a JSON value, as "Bearer %s" % value writes it. */
function pyStr(v: unknown): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  return JSON.stringify(v).replace(/"/g, "'").replace(/:/g, ': ').replace(/,/g, ', ');
}

/** The Python client: json.loads, key presence (exec_provider.py run, kube_config.py _load_from_exec_plugin). */
function pythonReading(stdout: string, configured: string): Finding[] {
  const parsed = strictJson(stdout);
  if (!parsed.ok) return notJson(stdout);
  const o = parsed.value;
  if (!isObj(o)) return [F('not-json', `the answer is ${show(o)}, not an object`)];
  const out: Finding[] = [];
  for (const k of ['apiVersion', 'kind', 'status'] as const)
    if (!has(o, k))
      return [
        F(
          k === 'apiVersion' ? 'apiVersion-missing' : k === 'kind' ? 'kind-missing' : 'status-missing',
          `the ExecCredential has no ${k}`,
        ),
      ];
  if (o.apiVersion !== configured) out.push(versionFinding(o.apiVersion, configured)!);
  const s = o.status;
  // 'token' in status on None, a number or a boolean: a TypeError, logged.
  if (s === null || typeof s === 'number' || typeof s === 'boolean')
    return [...out, F('status-missing', `status is ${show(s)}`)];
  if (!isObj(s)) return [...out, F('status-not-object', `status is ${show(s)}, not an object: it holds nothing`)];
  if (has(s, 'token')) {
    // The token wins, whatever its value: "Bearer %s" % status['token']; a certificate is never loaded.
    const t = s.token;
    if (t === null || t === false || t === 0)
      return [...out, F('token-falsy', `status.token is ${show(t)}: it sends "Bearer ${pyStr(t)}"`)];
    if (typeof t !== 'string')
      out.push(F('token-not-string', `status.token is ${jsonType(t)} (${show(t)}), not a string`));
    const token = pyStr(t);
    if (token === '')
      return [
        ...out,
        has(s, 'clientCertificateData')
          ? F('token-empty-with-cert', 'status.token is "" next to a client certificate')
          : F('no-credential', 'status.token is "" (it sends "Bearer ", no token)'),
      ];
    if (has(s, 'clientCertificateData')) out.push(F('token-and-cert', 'status holds a token and a client certificate'));
    out.push(...tokenFindings(token, { certificate: false, reader: 'python' }));
    return out;
  }
  if (!has(s, 'clientCertificateData')) {
    out.push(
      has(s, 'clientKeyData')
        ? F('key-without-cert', 'status holds clientKeyData without clientCertificateData')
        : F(
            'no-credential',
            `status holds neither a token nor a certificate (its fields: ${Object.keys(s).join(', ') || 'none'})`,
          ),
    );
    return out;
  }
  if (!has(s, 'clientKeyData'))
    return [...out, F('cert-without-key', 'status holds clientCertificateData without clientKeyData')];
  const cert = s.clientCertificateData;
  const key = s.clientKeyData;
  // FileOrData writes each to a file for urllib3: an empty (falsy) value makes no file, so no certificate is
  // loaded; anything but text fails the write, which is logged; a certificate without a key file fails TLS.
  if (!cert)
    return [...out, F('no-credential', `status.clientCertificateData is ${show(cert)}: no certificate is loaded`)];
  if (typeof cert !== 'string')
    return [...out, F('cert-or-key-not-string', `status.clientCertificateData is ${jsonType(cert)}, not a string`)];
  if (typeof key !== 'string' || key === '')
    return [
      ...out,
      F('cert-key-mismatch', `status.clientKeyData is ${show(key)}: TLS loads the certificate without its key`),
    ];
  out.push(...pairFindings(cert, key, false));
  return out;
}

/** A typed decode that failed: the field, its kind, and that the whole answer is lost. */
function wrongKind(t: Extract<TypedDecode, { ok: false }>, client: string): Finding {
  return F(
    'field-wrong-type',
    `${t.field} is ${jsonType(t.value)} (${show(t.value, 40)}): ${client} cannot decode the answer with it`,
  );
}

/** What is not a YAML 1.2 printable character (c-printable): serde_saphyr refuses the stream. */
const NOT_YAML_PRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\ufffe\uffff]/;

/**
 * kube-rs (kube-client auth/mod.rs:340-372, 641-646): serde_saphyr (YAML 1.2, a byte-order mark allowed; an empty
 * stream is an empty mapping) into the typed ExecCredential, by its fieldKinds; apiVersion and kind never checked;
 * a certificate and key both there win over the token; then the token as it is.
 */
function kubeRsReading(stdout: string, configured: string): Finding[] {
  const text = stdout.replace(/^\uFEFF/, '');
  const out: Finding[] = text === stdout ? [] : [BOM];
  const bad = text.search(NOT_YAML_PRINTABLE);
  const parsed =
    text.trim() === '' ? ({ ok: true, value: {}, format: 'yaml' } as const) : parseStdoutLikeClientGo(text);
  // An empty stream is an empty mapping, but a null document is no mapping (client-go makes both an empty object).
  const nullDocument = /^\s*(null|~|Null|NULL)\s*$/.test(text);
  if (bad >= 0 || !parsed.ok || nullDocument)
    return [
      F(
        'not-json',
        bad >= 0
          ? `stdout holds ${escapeChar(text.codePointAt(bad)!)} at offset ${bad}, which YAML does not allow`
          : `stdout is not one YAML (or JSON) mapping: ${show(stdout.trim(), 80)}`,
      ),
    ];
  if (parsed.format === 'yaml' && Object.keys(parsed.value).length > 0)
    out.push(F('yaml', 'the ExecCredential is printed as YAML, not JSON'));
  const typed = decodeTyped(parsed.value, KUBE_RS_RULES.fieldKinds!.kinds);
  if (!typed.ok) return [...out, wrongKind(typed, 'kube-rs')];
  const a = typed.answer;
  const version = versionFinding(a.apiVersion, configured);
  if (version) out.push(version);
  if (a.kind === undefined || a.kind === '') out.push(F('kind-missing', 'the ExecCredential has no kind'));
  else if (a.kind !== 'ExecCredential') out.push(F('kind-wrong', `kind is ${show(a.kind)}`));
  const s = a.status;
  if (!s) return [...out, F('status-missing', 'the ExecCredential has no status (or it is null)')];
  const ts = s.expirationTimestamp;
  if (ts !== undefined) {
    // jiff's grammar, not RFC 3339's (jiff-timestamp.ts).
    const at = parseJiffTimestamp(ts);
    if (!at.ok) out.push(F('timestamp-not-rfc3339', `expirationTimestamp is ${show(ts)} (${at.defect})`));
    else if (at.ms <= Date.now()) out.push(F('expired', `expirationTimestamp ${show(ts)} is already past`));
  }
  const { token, clientCertificateData: cert, clientKeyData: key } = s;
  if (cert !== undefined && key !== undefined) return [...out, ...pairFindings(cert, key, Boolean(token))];
  if (token !== undefined) return [...out, ...tokenFindings(token, { certificate: false, reader: 'client-go' })];
  if (cert !== undefined)
    return [...out, F('cert-without-key', 'status holds clientCertificateData without clientKeyData')];
  if (key !== undefined)
    return [...out, F('key-without-cert', 'status holds clientKeyData without clientCertificateData')];
  return [
    ...out,
    a.rawToken === null
      ? F('token-falsy', 'status.token is null, and there is no certificate')
      : F('no-credential', 'status holds neither a token nor a certificate'),
  ];
}

/** Jackson reads one JSON value and leaves what follows it unread (FAIL_ON_TRAILING_TOKENS is off). */
function firstJsonValue(text: string): { ok: true; value: unknown } | { ok: false } {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) {
      try {
        return { ok: true, value: JSON.parse(text.slice(0, i + 1)) as unknown };
      } catch {
        return { ok: false };
      }
    }
  }
  return { ok: false };
}

/**
 * fabric8 (KubeConfigUtils.java:317-376, KubernetesSerialization.unmarshal): Jackson when the first non-blank byte is
 * '{' or '[', else SnakeYAML; into the typed ExecCredential by its fieldKinds (expirationTimestamp is not a field);
 * the apiVersion must equal the kubeconfig's; a token that is there (even "") wins over a certificate.
 */
function fabric8Reading(stdout: string, configured: string): Finding[] {
  const start = stdout.search(/[^\t\n\v\f\r \u001c-\u001f]/);
  const json = start >= 0 && (stdout[start] === '{' || stdout[start] === '[');
  let value: unknown;
  if (json) {
    const j = firstJsonValue(stdout.slice(start));
    if (!j.ok) return [F('not-json', `stdout is not JSON: ${show(stdout.trim(), 80)}`)];
    value = j.value;
  } else {
    const y = parseStdoutLikeClientGo(stdout.replace(/^\uFEFF/, ''));
    if (!y.ok) return [F('not-json', `stdout is not JSON or YAML: ${show(stdout.trim(), 80)}`)];
    value = y.value;
  }
  const out: Finding[] = stdout.startsWith('\uFEFF') ? [BOM] : [];
  // Read as YAML, but written as JSON behind a byte-order mark: not what the yaml row means.
  if (!json && !/^\uFEFF\s*[{[]/.test(stdout) && isObj(value) && Object.keys(value).length > 0)
    out.push(F('yaml', 'the ExecCredential is printed as YAML, not JSON'));
  if (!isObj(value)) return [...out, F('not-json', `the answer is ${show(value)}, not an object`)];
  const typed = decodeTyped(value, FABRIC8_RULES.fieldKinds!.kinds);
  if (!typed.ok) return [...out, wrongKind(typed, 'fabric8')];
  const a = typed.answer;
  const version = versionFinding(a.apiVersion, configured);
  if (version) return [...out, version];
  if (a.kind === undefined || a.kind === '') out.push(F('kind-missing', 'the ExecCredential has no kind'));
  const s = a.status;
  if (!s) return [...out, F('status-missing', 'the ExecCredential has no status (or it is null)')];
  const { token, clientCertificateData: cert, clientKeyData: key } = s;
  if (token === '')
    return [
      ...out,
      cert !== undefined
        ? F('token-empty-with-cert', 'status.token is "" next to a client certificate')
        : F('no-credential', 'status.token is "": fabric8 sends no Authorization header'),
    ];
  if (token !== undefined) {
    if (cert !== undefined) out.push(F('token-and-cert', 'status holds a token and a client certificate'));
    return [...out, ...tokenFindings(token, { certificate: false, reader: 'client-go' })];
  }
  // Utils.isNotNullOrEmpty on both: an empty certificate or key is none.
  if (cert && key) return [...out, ...pairFindings(cert, key, false)];
  if (cert) return [...out, F('cert-without-key', 'status holds clientCertificateData without clientKeyData')];
  if (key) return [...out, F('key-without-cert', 'status holds clientKeyData without clientCertificateData')];
  return [
    ...out,
    a.rawToken === null
      ? F('token-falsy', 'status.token is null, and there is no certificate')
      : F('no-credential', 'status holds neither a token nor a certificate pair'),
  ];
}

// kube-rs and fabric8 decode into typed fields, each by its own fieldKinds (above); kubernetes_asyncio (json.loads,
// key presence) reads an answer as the Python client does.
const READERS: Record<ExecClientName, (stdout: string, configured: string) => Finding[]> = {
  kubectl: goReading,
  'client-go': goReading,
  'client-node': nodeReading,
  python: pythonReading,
  fabric8: fabric8Reading,
  'kube-rs': kubeRsReading,
  'kubernetes-asyncio': pythonReading,
};
const READS_LIKE: Record<'client-go' | 'client-node' | 'python' | 'fabric8' | 'kube-rs', ExecClientName[]> = {
  'client-go': ['kubectl', 'client-go'],
  'client-node': ['client-node'],
  python: ['python', 'kubernetes-asyncio'],
  fabric8: ['fabric8'],
  'kube-rs': ['kube-rs'],
};

/** A plugin that answers (exit 0) but writes to stderr: only fabric8, which merges stderr into stdout, minds. */
function stderrFinding(run: AnsweredRun): Finding[] {
  const said = run.stderr?.trim();
  return said ? [F('stderr-output', `the plugin wrote to stderr: ${show(said.split('\n')[0], 100)}`)] : [];
}

/** What `client` finds in one plugin run's answer, for a kubeconfig configured with `configured`, in its order. */
export function clientFindings(client: ExecClientName, run: AnsweredRun, configured: string): Finding[] {
  return (
    ending(run) ??
    [...stderrFinding(run), ...READERS[client](run.stdout, configured)].map((f) => ({ ...f, clients: [client] }))
  );
}

/** Every client's findings, one entry per trait and detail, with the clients whose reading meets it. */
export function answerFindings(run: AnsweredRun, configured: string): Finding[] {
  const early = ending(run);
  if (early) return early;
  const out: Finding[] = stderrFinding(run);
  for (const client of ['client-go', 'client-node', 'python', 'fabric8', 'kube-rs'] as const)
    for (const f of READERS[client](run.stdout, configured)) {
      const same = out.find((x) => x.trait === f.trait && x.detail === f.detail);
      const clients = READS_LIKE[client];
      if (same) same.clients = [...(same.clients ?? []), ...clients];
      else out.push({ ...f, clients });
    }
  return out;
}

/** The traits alone, in the same order. */
export function answerTraits(run: AnsweredRun, configured: string): AnswerTrait[] {
  return [...new Set(answerFindings(run, configured).map((f) => f.trait))];
}

/**
 * The findings about a token the client sends as "Bearer <token>": its
 * characters (named by the row the clients' header rules make of them) and
 * its size; a leading space leaves the API server no token, which matters
 * only when no certificate pair goes along.
 */
export function tokenFindings(
  t: string,
  o: { certificate: boolean; reader: 'client-go' | 'client-node' | 'python' },
): Finding[] {
  const out: Finding[] = [];
  // kube-apiserver trims the Authorization value, splits it on single spaces and takes the second part:
  // a token that starts with a space, or is only blanks, leaves it none (client-node's fetch trims first too).
  if (!`Bearer ${t}`.trim().split(' ')[1] && !o.certificate)
    out.push(
      F(
        'token-leading-space',
        t.trim() === '' ? `status.token is only blanks (${show(t)})` : 'status.token starts with a space',
      ),
    );
  const bytes = Buffer.byteLength(t);
  if (bytes > KUBE_APISERVER_MAX_HEADER_BYTES)
    out.push(F('token-over-1mib', `status.token is ${bytes} bytes, over the 1 MiB of headers kube-apiserver takes`));
  else if (bytes > 16 * 1024) out.push(F('token-over-16kib', `status.token is ${bytes} bytes`));
  const at = (re: RegExp) => {
    const i = t.search(re);
    return `${escapeChar(t.codePointAt(i)!)} at offset ${i}`;
  };
  if (/[^\u0000-\u00ff]/.test(t))
    out.push(F('token-not-latin1', `status.token holds ${at(/[^\u0000-\u00ff]/)}, outside Latin-1`));
  else if (/[^\u0000-\u007f]/.test(t))
    out.push(F('token-non-ascii', `status.token holds ${at(/[^\u0000-\u007f]/)}, a Latin-1 character outside ASCII`));
  const go = headerProblem('client-go', t);
  if (!go) return out;
  const where = `${go.char} at offset ${go.offset} of ${t.length}`;
  // Which control-character row: by what client-node and Python make of it (their Latin-1 rule aside).
  const ascii = t.replace(/[^\u0000-\u007f]/g, 'x');
  const node = headerProblem('client-node', ascii);
  const python = headerProblem('python', ascii);
  if (python?.refusal === 'client-refuses')
    out.push(
      node
        ? F('token-line-break', `status.token holds a line break inside it (${where})`)
        : F('token-ends-in-line-break', `status.token ends in a line break (${where})`),
    );
  else out.push(F('token-control-char', `status.token holds a control character (${where})`));
  return out;
}
