// The exec-static-credentials suite's data: the rows each client runs (a
// static credential beside the exec user), the identities the API server
// knows (one ServiceAccount per credential, so the user it authenticates
// names the credential that was sent), and the kubeconfig of a row. No I/O.
import type { StaticClient, StaticCredential } from '../../src/model/exec-static-credentials.ts';

export interface StaticRow {
  /** Reads as the row in messages; never a credential-like key (the redactor hides those). */
  label: string;
  static: StaticCredential;
  tokenFileNewline?: boolean;
}

const COMMON: StaticRow[] = [
  { label: 'exec only', static: 'none' },
  { label: 'token beside exec', static: 'token' },
  { label: 'tokenFile beside exec', static: 'tokenFile' },
  { label: 'tokenFile ending in a newline beside exec', static: 'tokenFile', tokenFileNewline: true },
  { label: 'username and password beside exec', static: 'basic' },
];

export function rowsOf(client: StaticClient): StaticRow[] {
  return client === 'kubectl' ? [...COMMON, { label: 'kubectl --token beside exec', static: 'cliToken' }] : COMMON;
}

/** One ServiceAccount per credential the API server can tell apart: the plugin's, the kubeconfig's token, the file's, --token's. */
export const IDENTITIES = {
  plugin: 'xsc-plugin',
  static: 'xsc-static',
  file: 'xsc-file',
  cli: 'xsc-cli',
} as const;
export type Identity = keyof typeof IDENTITIES;

export interface RowCredentials {
  /** Token per identity. */
  tokens: Record<Identity, string>;
  tokenFile: string;
  username: string;
  password: string;
}

/** The user stanza of a row: the exec plugin, and beside it the row's static credential. */
export function userOf(row: StaticRow, exec: Record<string, unknown>, c: RowCredentials): Record<string, unknown> {
  const beside =
    row.static === 'token'
      ? { token: c.tokens.static }
      : row.static === 'tokenFile'
        ? { tokenFile: c.tokenFile }
        : row.static === 'basic'
          ? { username: c.username, password: c.password }
          : {};
  return { exec, ...beside };
}

/** The ConfigMap only `identity` may get: a 200 for it names who the API server authenticated. */
export const configMapOf = (identity: Identity) => `${IDENTITIES[identity]}-only`;

export const PLUGIN = 'credprov-xsc-plugin';
export const REQUEST_TIMEOUT_MS = 60_000;
