// What a client that decodes the plugin's answer into typed fields (kube-rs:
// serde_saphyr into Option<String>s; fabric8: Jackson into Strings) holds
// after the decode, by the fieldKinds of its rules (field-rules.ts): a scalar
// where a string goes is its text ("token": 0 is the token "0"), null is no
// field, an object where a string goes fails the whole decode. findings.ts
// then reads the typed answer as the client's code does.
import type { ExecField, FieldKinds, JsonKind } from './decoding-model.ts';

export interface TypedStatus {
  token?: string;
  expirationTimestamp?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
}

export interface TypedAnswer {
  apiVersion?: string;
  kind?: string;
  status?: TypedStatus;
  /** The raw status.token when the decode made it absent (null), for the finding's words. */
  rawToken?: unknown;
}

export type TypedDecode =
  { ok: true; answer: TypedAnswer } | { ok: false; field: ExecField; kind: JsonKind; value: unknown };

export function jsonKind(v: unknown): JsonKind {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

type Obj = Record<string, unknown>;
const STATUS_FIELDS = ['token', 'expirationTimestamp', 'clientCertificateData', 'clientKeyData'] as const;

/** The answer (a JSON or YAML mapping) as the typed client holds it, or the field whose kind fails the decode. */
export function decodeTyped(o: Obj, kinds: FieldKinds): TypedDecode {
  const answer: TypedAnswer = {};
  let refused: TypedDecode | undefined;
  /** The field's value as the client holds it: text, an object, or undefined (absent or ignored). */
  const read = (field: ExecField, v: unknown): string | Obj | undefined => {
    const kind = jsonKind(v);
    switch (kinds[field][kind]) {
      case 'value':
        return v as string | Obj;
      case 'text':
        return String(v);
      case 'refused':
        refused ??= { ok: false, field, kind, value: v };
        return undefined;
      default:
        return undefined;
    }
  };
  for (const k of ['apiVersion', 'kind'] as const) {
    const v = read(k, o[k]);
    if (typeof v === 'string') answer[k] = v;
  }
  read('spec', o.spec);
  const status = read('status', o.status);
  if (status && typeof status === 'object') {
    const s: TypedStatus = {};
    for (const k of STATUS_FIELDS) {
      const v = read(`status.${k}`, status[k]);
      if (typeof v === 'string') s[k] = v;
    }
    answer.status = s;
    if (s.token === undefined && status.token !== undefined) answer.rawToken = status.token;
  }
  return refused ?? { ok: true, answer };
}
