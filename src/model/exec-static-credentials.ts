// credprov's model of a kubeconfig user that has an exec plugin AND a static
// credential (token, tokenFile, basic auth) or, for kubectl, `--token`: does
// the client run the plugin, and whose credential goes out? (k/k #87369,
// #91745, #102175, #107410; test/cmd/authentication.sh covers kubectl's
// --token only.) Read in the clients credprov drives; seen live through each
// with a recording endpoint (docs/findings.md, findings 19 and 20):
//
// - client-go v0.37.1 (kubectl too): exec.go UpdateTransportConfig (313-322)
//   installs nothing when the transport already has a bearer token, a token
//   file, basic auth or a client certificate: the plugin never runs and the
//   static credential is sent. clientcmd refuses token plus basic auth ("more
//   than one authentication method found"), not token plus exec. kubectl
//   --token replaces the kubeconfig's token the same way. The token file is
//   read with its whitespace trimmed.
// - @kubernetes/client-node 2.0.1: config.js applyAuthorizationHeader
//   (611-633) runs the plugin for any user with `exec`, sets its token, then
//   lets `user.token` overwrite it. Users are read by config_types.js
//   (88-128), which reads `token` and `token-file`, not the kubeconfig field
//   `tokenFile`, so a tokenFile is ignored. Basic auth is set first and then
//   overwritten by the plugin's Bearer header (applySecurityAuthentication,
//   196-209), so the plugin's token goes out.
// - kubernetes (Python) 37.0.2: kube_config.py _load_authentication (284-304)
//   stops at the first of auth-provider, token/tokenFile, exec, basic: a
//   token or token file wins and the plugin never runs; basic auth loses to
//   the plugin. The token file is sent as read (FileOrData, 476-485): a
//   trailing newline makes http.client refuse the header
//   ("ValueError: Invalid header value b'Bearer …\n'").
/** The four clients read here (not every ClientName: a client joins when it is read and seen). */
export const STATIC_CLIENTS = ['kubectl', 'client-go', 'client-node', 'python'] as const;
export type StaticClient = (typeof STATIC_CLIENTS)[number];

export type StaticCredential = 'none' | 'token' | 'tokenFile' | 'basic' | 'cliToken';

export interface StaticCase {
  client: StaticClient;
  static: StaticCredential;
  /** The token file ends with a newline (as `echo token > file` writes it). */
  tokenFileNewline?: boolean;
}

export type Sent = 'plugin-token' | 'static-token' | 'file-token' | 'basic' | 'cli-token' | 'nothing';

export interface StaticPrediction {
  pluginRuns: boolean;
  sent: Sent;
  /** The client fails before sending (its own words, or a prefix of them). */
  clientError?: string;
  because: string;
}

export function staticBesideExec(c: StaticCase): StaticPrediction {
  if (c.static === 'cliToken' && c.client !== 'kubectl')
    throw new Error(`${c.client} has no command line: --token is kubectl's`);
  if (c.static === 'none')
    return { pluginRuns: true, sent: 'plugin-token', because: 'only the exec plugin: it runs and its token is sent' };
  switch (c.client) {
    case 'kubectl':
    case 'client-go': {
      const what = {
        token: ['static-token', 'a bearer token'],
        tokenFile: ['file-token', 'a token file (read trimmed)'],
        basic: ['basic', 'basic auth'],
        cliToken: ['cli-token', '--token'],
      } as const;
      const [sent, label] = what[c.static];
      return {
        pluginRuns: false,
        sent,
        because: `the transport already has ${label}, so client-go's exec authenticator installs nothing (exec.go UpdateTransportConfig): the plugin never runs`,
      };
    }
    case 'client-node':
      if (c.static === 'token')
        return {
          pluginRuns: true,
          sent: 'static-token',
          because: 'client-node runs the plugin for any exec user, then user.token overwrites its Authorization header',
        };
      if (c.static === 'tokenFile')
        return {
          pluginRuns: true,
          sent: 'plugin-token',
          because:
            "client-node reads `token-file`, not the kubeconfig's `tokenFile`: the file is ignored and the plugin's token is sent",
        };
      return {
        pluginRuns: true,
        sent: 'plugin-token',
        because: "client-node sets Basic first, then copies the plugin's Bearer header over it: basic auth is lost",
      };
    case 'python':
      if (c.static === 'token')
        return {
          pluginRuns: false,
          sent: 'static-token',
          because: 'the Python client takes a token before exec and stops there',
        };
      if (c.static === 'tokenFile')
        return c.tokenFileNewline
          ? {
              pluginRuns: false,
              sent: 'nothing',
              clientError: "ValueError: Invalid header value b'Bearer ",
              because:
                'the Python client takes the token file before exec, untrimmed: http.client refuses a header value ending in a newline, so nothing is sent and the plugin never runs',
            }
          : {
              pluginRuns: false,
              sent: 'file-token',
              because: 'the Python client takes a token file before exec and stops there',
            };
      return {
        pluginRuns: true,
        sent: 'plugin-token',
        because: 'the Python client tries exec before basic auth: the plugin runs and basic auth is never used',
      };
  }
}
