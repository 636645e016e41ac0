// The field clients (fabric8, kube-rs, kubernetes_asyncio) in the client
// decoding table: their rows (src/clients/<client>/*-rules.ts, each citing
// the client's source and re-checked on the real client by
// field-probes.test.ts) merged into the table's rows, and the order each
// looks at an answer. A trait a field client has no row for is unmodelled for
// it: predictClient says so rather than guess.
import type { AnswerTrait, DecodingRow } from './decoding-model.ts';
import { FABRIC8_RULES } from './fabric8/fabric8-rules.ts';
import type { FieldClientRules } from './field-rules.ts';
import { KUBE_RS_RULES } from './kube-rs/kube-rs-rules.ts';
import { KUBERNETES_ASYNCIO_RULES } from './kubernetes-asyncio/kubernetes-asyncio-rules.ts';
import type { FieldClientName } from './probe.ts';

export const FIELD_RULES: Record<FieldClientName, FieldClientRules> = {
  fabric8: FABRIC8_RULES,
  'kube-rs': KUBE_RS_RULES,
  'kubernetes-asyncio': KUBERNETES_ASYNCIO_RULES,
};

/** Each row with the field clients' outcomes and sources added where their rules have the trait. */
export function withFieldRows(rows: readonly DecodingRow[]): DecodingRow[] {
  return rows.map((row) => {
    const clients = { ...row.clients };
    const why = { ...row.why };
    for (const rules of Object.values(FIELD_RULES)) {
      const r = rules.decoding[row.trait];
      if (!r) continue;
      clients[rules.client] = {
        verdict: r.verdict,
        ...(r.says ? { says: r.says } : {}),
        ...(r.note ? { note: r.note } : {}),
      };
      why[rules.client] = r.why;
    }
    return { ...row, clients, why };
  });
}

/**
 * The order each field client looks at an answer, from its code (see CHECK_ORDER in decoding.ts): the first trait
 * present that it does not accept decides.
 */
export const FIELD_CHECK_ORDER: Record<FieldClientName, readonly AnswerTrait[]> = {
  // KubeConfigUtils.java:317-376: read to EOF (stderr merged), exit code only logged, unmarshal (Jackson or SnakeYAML,
  // fieldKinds), apiVersion, status, then the token (even "") before a certificate; vert.x's header rule last.
  fabric8: [
    'no-answer',
    'exit-nonzero',
    'stderr-output',
    'bom',
    'not-json',
    'yaml',
    'field-wrong-type',
    'apiVersion-missing',
    'apiVersion-unknown',
    'apiVersion-other',
    'kind-missing',
    'kind-wrong',
    'status-missing',
    'token-not-string',
    'token-empty-with-cert',
    'token-falsy',
    'no-credential',
    'cert-without-key',
    'key-without-cert',
    'timestamp-not-rfc3339',
    'expired',
    'token-and-cert',
    'token-ends-in-line-break',
    'token-line-break',
    'token-control-char',
    'token-not-latin1',
    'token-non-ascii',
    'token-over-16kib',
    'token-over-1mib',
    'token-leading-space',
  ],
  // auth/mod.rs:340-372,565-646: output, exit status, YAML parse (fieldKinds), status, expiry, certificate pair, token.
  'kube-rs': [
    'no-answer',
    'exit-nonzero',
    'stderr-output',
    'bom',
    'not-json',
    'yaml',
    'field-wrong-type',
    'apiVersion-missing',
    'apiVersion-other',
    'apiVersion-unknown',
    'kind-missing',
    'kind-wrong',
    'status-missing',
    'token-not-string',
    'timestamp-not-rfc3339',
    'token-and-cert',
    'cert-only',
    'cert-key-mismatch',
    'no-credential',
    'token-falsy',
    'cert-without-key',
    'key-without-cert',
    'token-ends-in-line-break',
    'token-line-break',
    'token-control-char',
    'token-not-latin1',
    'token-non-ascii',
    'token-over-16kib',
    'token-over-1mib',
    'token-leading-space',
    'expired',
  ],
  // exec_provider.py:85-113, kube_config.py:348-395: as the Python client's order.
  'kubernetes-asyncio': [
    'no-answer',
    'exit-nonzero',
    'stderr-output',
    'not-json',
    'yaml',
    'apiVersion-missing',
    'kind-missing',
    'status-missing',
    'apiVersion-unknown',
    'apiVersion-other',
    'no-credential',
    'token-empty-with-cert',
    'cert-without-key',
    'key-without-cert',
    'cert-key-mismatch',
    'timestamp-not-rfc3339',
    'token-not-string',
    'token-ends-in-line-break',
    'token-line-break',
    'token-control-char',
    'token-over-1mib',
    'token-leading-space',
    'expired',
    'token-and-cert',
  ],
};
