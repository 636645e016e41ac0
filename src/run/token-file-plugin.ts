// The smallest exec plugin a client suite needs: it logs each run (its $0, so
// a suite sees which path the client ran) and answers a v1 ExecCredential
// whose token is the file's content at that moment, so a case can change the
// token between runs without rewriting the plugin.

/** The plugin's shell program: appends "$0" to `log`, prints the token read from `tokenFile`. */
export function tokenFilePluginProgram(log: string, tokenFile: string): string {
  return [
    '#!/bin/sh',
    `echo "$0" >> '${log}'`,
    `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$(cat '${tokenFile}')"`,
    '',
  ].join('\n');
}
