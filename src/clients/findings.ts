// What a plugin's answer is like, trait by trait, each with the plugin's own
// value and its actual defect in words (`detail`): a prediction and its
// explanation quote the answer credprov saw, never the example a table row
// was found with. The traits name rows of the client decoding table
// (decoding.ts); predictClient reads them in each client's check order.
import { checkKeyPair } from '../api/exec/certificate.ts';
import { isRfc3339, parseJsonObject, parseStdoutLikeClientGo, rfc3339Defect } from '../api/exec/credential.ts';
import { isSupportedExecApiVersion } from '../api/exec/types.ts';
import { describeEnd } from '../plugin/go-exec.ts';
import type { AnswerTrait } from './decoding-model.ts';
import { escapeChar, headerProblem } from './header-rules.ts';
import { KUBE_APISERVER_MAX_HEADER_BYTES } from './scripted-endpoint.ts';

export interface Finding {
  trait: AnswerTrait;
  /** The plugin's value and its defect, one line: `expirationTimestamp is "2026-11-29T01:28:26" (no time zone: not RFC 3339)`. */
  detail: string;
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

const show = (v: unknown, max = 60): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > max ? `${text.slice(0, max)}…` : text;
};
const jsonType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/** The findings of one plugin run's answer, for a kubeconfig configured with `configured`. */
export function answerFindings(run: AnsweredRun, configured: string): Finding[] {
  // Every client reads stdout to its end and has no timeout of its own.
  const holder = run.strays?.find((s) => s.holds.includes('stdout'));
  if (run.timedOut || holder)
    return [
      {
        trait: 'no-answer',
        detail: holder
          ? `the plugin exited, but left ${holder.pid ? `pid ${holder.pid}` : 'a process'} holding its stdout`
          : `the plugin did not answer${run.durationMs ? ` within ${Math.round(run.durationMs)}ms` : ''}`,
      },
    ];
  if (run.exitCode !== 0 || run.signal) {
    const said = run.stderr?.trim().split('\n').pop();
    return [
      {
        trait: 'exit-nonzero',
        detail: `the plugin ${describeEnd(run)}${said ? ` (stderr: ${show(said, 100)})` : ' with nothing on stderr'}`,
      },
    ];
  }
  const json = parseJsonObject(run.stdout);
  let o: Record<string, unknown>;
  // JSON.parse in client-node and Python's json.loads refuse a byte-order mark; JavaScript's trim (credprov's parse) drops it.
  const out: Finding[] = run.stdout.startsWith('\uFEFF')
    ? [{ trait: 'bom', detail: 'stdout starts with a UTF-8 byte-order mark (U+FEFF)' }]
    : [];
  if (json.ok) o = json.value;
  else {
    const asGo = parseStdoutLikeClientGo(run.stdout);
    if (!asGo.ok || asGo.format !== 'yaml' || Object.keys(asGo.value).length === 0)
      return [{ trait: 'not-json', detail: `stdout is not one JSON object: ${show(run.stdout.trim(), 80)}` }];
    out.push({ trait: 'yaml', detail: 'the ExecCredential is printed as YAML, not JSON' });
    o = asGo.value;
  }
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  if (!apiVersion)
    out.push({
      trait: 'apiVersion-missing',
      detail:
        o.apiVersion === undefined ? 'the ExecCredential has no apiVersion' : `apiVersion is ${show(o.apiVersion)}`,
    });
  else if (!isSupportedExecApiVersion(apiVersion))
    out.push({ trait: 'apiVersion-unknown', detail: `apiVersion is ${show(apiVersion)}, a version no client knows` });
  else if (apiVersion !== configured)
    out.push({
      trait: 'apiVersion-other',
      detail: `apiVersion is ${show(apiVersion)}, but the kubeconfig says ${configured}`,
    });
  if (o.kind === undefined || o.kind === null || o.kind === '')
    out.push({
      trait: 'kind-missing',
      detail: o.kind === undefined ? 'the ExecCredential has no kind' : `kind is ${show(o.kind)}`,
    });
  else if (o.kind !== 'ExecCredential') out.push({ trait: 'kind-wrong', detail: `kind is ${show(o.kind)}` });
  const status = o.status;
  if (!status || typeof status !== 'object' || Array.isArray(status)) {
    out.push({
      trait: 'status-missing',
      detail: status === undefined ? 'the ExecCredential has no status' : `status is ${show(status)}, not an object`,
    });
    return out;
  }
  const s = status as Record<string, unknown>;
  const str = (k: string) => (typeof s[k] === 'string' ? (s[k] as string) : '');
  const ts = s.expirationTimestamp;
  if (typeof ts === 'string' && !isRfc3339(ts))
    out.push({
      trait: 'timestamp-not-rfc3339',
      detail: `expirationTimestamp is ${show(ts)} (${rfc3339Defect(ts)}: not RFC 3339)`,
    });
  else if (typeof ts === 'string' && Date.parse(ts) <= Date.now())
    out.push({ trait: 'expired', detail: `expirationTimestamp ${show(ts)} is already past` });
  const cert = str('clientCertificateData');
  const key = str('clientKeyData');
  const ofToken = tokenFindings(s, Boolean(cert && key));
  const has = (t: AnswerTrait) => ofToken.some((f) => f.trait === t);
  // A number is a token to the clients that stringify it (client-go refuses it as such: token-not-string).
  const token = str('token') || (has('token-not-string') ? String(s.token) : '');
  if (!token && !cert && !key) {
    // A null token: the Python client sends "Bearer None", so it is not "no credential" to every client.
    out.push(
      has('token-falsy')
        ? ofToken.find((f) => f.trait === 'token-falsy')!
        : {
            trait: 'no-credential',
            detail: `status holds neither a token nor a certificate (its fields: ${Object.keys(s).join(', ') || 'none'})`,
          },
    );
    return out;
  }
  if (cert && !key)
    out.push({ trait: 'cert-without-key', detail: 'status holds clientCertificateData without clientKeyData' });
  else if (key && !cert)
    out.push({ trait: 'key-without-cert', detail: 'status holds clientKeyData without clientCertificateData' });
  else if (cert && key) {
    const mismatch = checkKeyPair(cert, key);
    if (mismatch)
      out.push({
        trait: 'cert-key-mismatch',
        detail: `the client certificate and key do not belong together (${mismatch})`,
      });
    out.push(
      token
        ? { trait: 'token-and-cert', detail: 'status holds a token and a client certificate' }
        : { trait: 'cert-only', detail: 'status holds a client certificate and its key, no token' },
    );
  }
  out.push(...ofToken.filter((f) => f.trait !== 'token-falsy'));
  return out;
}

/** The traits alone, in the same order. */
export function answerTraits(run: AnsweredRun, configured: string): AnswerTrait[] {
  return answerFindings(run, configured).map((f) => f.trait);
}

/**
 * The findings about status.token: its JSON type, its characters (named by
 * the row the clients' header rules make of them), its size.
 */
export function tokenFindings(s: Record<string, unknown>, hasCert: boolean): Finding[] {
  const t = s.token;
  // client-node's `if (token)` drops a falsy one; Python's "Bearer %s" sends whatever is there; Go decodes only strings and null.
  if ((t === null || t === false || t === 0) && !hasCert)
    return [{ trait: 'token-falsy', detail: `status.token is ${show(t)}, and there is no certificate` }];
  if (t !== null && t !== undefined && typeof t !== 'string')
    return [{ trait: 'token-not-string', detail: `status.token is ${jsonType(t)} (${show(t)}), not a string` }];
  if (t === '' && hasCert)
    return [{ trait: 'token-empty-with-cert', detail: 'status.token is "" next to a client certificate and its key' }];
  if (typeof t !== 'string' || t === '') return [];
  const out: Finding[] = [];
  // kube-apiserver splits "Bearer <token>" on single spaces and takes the second part: here, an empty one.
  if (t.startsWith(' ')) out.push({ trait: 'token-leading-space', detail: 'status.token starts with a space' });
  const bytes = Buffer.byteLength(t);
  if (bytes > KUBE_APISERVER_MAX_HEADER_BYTES)
    out.push({
      trait: 'token-over-1mib',
      detail: `status.token is ${bytes} bytes, over the 1 MiB of headers kube-apiserver takes`,
    });
  else if (bytes > 16 * 1024) out.push({ trait: 'token-over-16kib', detail: `status.token is ${bytes} bytes` });
  const at = (re: RegExp) => {
    const i = t.search(re);
    return `${escapeChar(t.codePointAt(i)!)} at offset ${i}`;
  };
  if (/[^\u0000-\u00ff]/.test(t))
    out.push({ trait: 'token-not-latin1', detail: `status.token holds ${at(/[^\u0000-\u00ff]/)}, outside Latin-1` });
  else if (/[^\u0000-\u007f]/.test(t))
    out.push({
      trait: 'token-non-ascii',
      detail: `status.token holds ${at(/[^\u0000-\u007f]/)}, a Latin-1 character outside ASCII`,
    });
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
        ? { trait: 'token-line-break', detail: `status.token holds a line break inside it (${where})` }
        : { trait: 'token-ends-in-line-break', detail: `status.token ends in a line break (${where})` },
    );
  else out.push({ trait: 'token-control-char', detail: `status.token holds a control character (${where})` });
  return out;
}
