// Decoding and behaviour rows for the three field clients, one client per
// file: decoding.ts merges the decoding rows into its table (one
// ClientOutcome per client and AnswerTrait); the behaviour rows are what
// src/model/exec-field-clients.ts and exec-info.ts model for exec-plugin-401.
// Each row cites the client source it comes from; field-probes.test.ts runs
// the rows that have a fake-plugin scenario through the real client and
// checks the verdict.
import type { AnswerTrait, ClientOutcome, FieldKinds, JsonKind, KindReading } from './decoding-model.ts';
import type { FieldClientName } from './field-client.ts';

/**
 * Traits of the shared table, and two scenarios only the field-probes test runs: a plugin that reads stdin (what
 * fabric8's silent pipe does to it), and a plugin following KUBERNETES_EXEC_INFO under an apiVersion v1 kubeconfig
 * (the table's apiVersion-other, met through a client that never sets the variable).
 */
export type FieldTrait = AnswerTrait | 'reads-stdin' | 'exec-info-default-under-v1';

export interface FieldRow extends ClientOutcome {
  /** The client source that explains the outcome (file and line, at the pinned version). */
  why: string;
  /** The fake-plugin scenario that shows it (fixtures/fake-exec-plugin), when one does. */
  scenario?: Record<string, unknown>;
  /** The kubeconfig's exec apiVersion for the scenario (default v1beta1, what AKS, GKE and OKE write). */
  execApiVersion?: string;
}

export interface FieldBehaviour {
  /** What the client does after a 401 with the plugin's credential. */
  reExecOn401: string;
  /** When it runs the plugin again without a 401. */
  cache: string;
  /** Whether and how it sets KUBERNETES_EXEC_INFO. */
  execInfo: string;
  /** What interactiveMode does, and the plugin's stdin. */
  interactive: string;
  /** Plugin runs before the first request is answered, in a fresh process. */
  runsAtStart: string;
  why: string;
}

export interface FieldClientRules {
  client: FieldClientName;
  version: string;
  /** Where the source was read. */
  source: string;
  decoding: Partial<Record<FieldTrait, FieldRow>>;
  /**
   * What the client's typed decoder makes of each field by its JSON kind (findings.ts reads the answer with it):
   * the trait that separates a scalar read as text (`"token": 0`) from an object that fails the decode.
   */
  fieldKinds?: { kinds: FieldKinds; why: string };
  behaviour: FieldBehaviour;
}

/** A kinds row: `rest` for every kind `given` does not name. */
export function kinds(given: Partial<Record<JsonKind, KindReading>>, rest: KindReading): Record<JsonKind, KindReading> {
  return {
    string: rest,
    number: rest,
    bool: rest,
    null: rest,
    object: rest,
    array: rest,
    missing: rest,
    ...given,
  };
}
