// The three field clients issue 31 added to the exec matrix (fabric8, kube-rs,
// kubernetes_asyncio): their probe type. Their names are in probe.ts
// (FIELD_CLIENT_NAMES, part of EXEC_CLIENT_NAMES).
import { FIELD_CLIENT_NAMES, type ClientProbe, type FieldClientName } from './probe.ts';

export { FIELD_CLIENT_NAMES, type FieldClientName };

export type FieldClientProbe = ClientProbe<FieldClientName>;

export function isFieldClientName(s: string): s is FieldClientName {
  return (FIELD_CLIENT_NAMES as readonly string[]).includes(s);
}
