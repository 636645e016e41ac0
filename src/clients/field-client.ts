// The three client libraries issue 31 adds to the exec matrix (fabric8,
// kube-rs, kubernetes_asyncio): their names and probe type. Phase 1 builds
// and drives them; they join CLIENT_NAMES (probe.ts), the decoding tables and
// `certify exec-plugin --clients` when their rows move into the verdicts
// table (phase 2). Until then they are ClientProbes in all but the name's type.
import type { ClientName, ClientProbe } from './probe.ts';

export type FieldClientName = 'fabric8' | 'kube-rs' | 'kubernetes-asyncio';
export const FIELD_CLIENT_NAMES: readonly FieldClientName[] = ['fabric8', 'kube-rs', 'kubernetes-asyncio'];

export type FieldClientProbe = Omit<ClientProbe, 'name'> & { readonly name: FieldClientName };

/**
 * The name as line-session.ts and ProbeSession type it. The session only prints it, so the cast is safe;
 * it goes when ClientName takes the three names.
 */
export function asMatrixName(name: FieldClientName): ClientName {
  return name as unknown as ClientName;
}

export function isFieldClientName(s: string): s is FieldClientName {
  return (FIELD_CLIENT_NAMES as readonly string[]).includes(s);
}
