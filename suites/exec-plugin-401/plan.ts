// The exec-plugin-401 suite's plan, its behaviours: each a few scripted sessions (what
// the kubeconfig says, whether the client has a terminal, what the fake
// plugin answers, and when requests and revocations happen), run the same way
// by every client. One check per behaviour and client; the report draws them
// as the client × behaviour table.
import { V1, V1BETA1, type ExecApiVersion, type InteractiveMode } from '../../src/api/exec/types.ts';
import type { ExecUserModel } from '../../src/model/exec-info.ts';
import type { Level } from '../../src/run/kit.ts';

/** What the fake exec plugin answers on every run of a session. */
export type PluginPlan =
  /** A fresh token from the webhook's issuer; the webhook accepts it for lifetimeMs (default 1 h); the first `rejectFirst` are issued already revoked. */
  | { kind: 'issuer'; claimSeconds: number | null; lifetimeMs?: number; rejectFirst?: number }
  /** The same token on every run, one the webhook never issued. */
  | { kind: 'same-refused-token'; claimSeconds: number | null }
  /** A new client certificate from the cluster CA on every run, valid lifetimeSeconds, with expirationTimestamp at its NotAfter. */
  | { kind: 'cert'; lifetimeSeconds: number };

/** A request, or a revocation of every token issued to the session so far; afterMs counts from the end of the step before. */
export type Step = { do: 'request'; afterMs: number } | { do: 'revoke'; afterMs: number };

export interface SessionPlan {
  /** Tells the sessions of one behaviour apart in evidence ('' when there is one). */
  label: string;
  user: ExecUserModel;
  /** The cluster's client.authentication.k8s.io/exec extension. */
  clusterConfig?: unknown;
  terminal: boolean;
  plugin: PluginPlan;
  steps: Step[];
}

export interface Behaviour {
  /** Short key: artifacts dirs and token subjects. */
  key: string;
  /** The row in the client × behaviour table. */
  row: string;
  /** Check id without the client (…/<client> is appended). */
  id: string;
  title: string;
  level: Level;
  source: string;
  sessions: SessionPlan[];
  /** What the cell shows: the requests (status/plugin runs), or what the plugin was told. */
  show: 'requests' | 'launch';
}

const KEP = 'KEP-541 (client-go credential plugins; kubernetes.io/docs/reference/access-authn-authz/authentication)';
const user = (o: Partial<ExecUserModel> = {}): ExecUserModel => ({
  apiVersion: V1,
  interactiveMode: 'Never',
  provideClusterInfo: false,
  ...o,
});
const req = (afterMs = 300): Step => ({ do: 'request', afterMs });
const one = (plugin: PluginPlan, steps: Step[], o: Partial<SessionPlan> = {}): SessionPlan[] => [
  { label: '', user: user(), terminal: false, plugin, steps, ...o },
];
const token = (claimSeconds: number | null, o: { lifetimeMs?: number; rejectFirst?: number } = {}): PluginPlan => ({
  kind: 'issuer',
  claimSeconds,
  ...o,
});

/** The extension a cluster carries for its exec plugin (what provideClusterInfo passes as spec.cluster.config). */
export const CLUSTER_EXTENSION = { audience: 'credprov-exec-401', region: 'loopback-1' };

const MODES: InteractiveMode[] = ['Never', 'IfAvailable', 'Always'];
const VERSIONS: ExecApiVersion[] = [V1, V1BETA1];

export const BEHAVIOURS: Behaviour[] = [
  {
    key: 'cache-expiry',
    row: 'caching until expirationTimestamp (6s)',
    id: 'EX401-CACHE-UNTIL-EXPIRY',
    level: 'MUST',
    show: 'requests',
    title: 'A token with expirationTimestamp 6s ahead: which requests run the plugin, before and after it expires',
    source: `${KEP}: "expirationTimestamp … the credential is cached until then" and run again after it`,
    // The second request comes well inside the 6s claimed, the third well after it (counted from the second's end).
    sessions: one(token(6), [req(0), req(300), req(7500), req(300)]),
  },
  {
    key: 'cache-early',
    row: 'expirationTimestamp 3 min ahead (early refresh)',
    id: 'EX401-CACHE-EARLY-REFRESH',
    level: 'SHOULD',
    show: 'requests',
    title: 'A token that expires in 3 minutes: does the client refresh before expirationTimestamp?',
    source: `${KEP}: expirationTimestamp is when the credential stops being valid; how early a client refreshes is its own choice`,
    sessions: one(token(180), [req(0), req(300), req(300)]),
  },
  {
    key: 'cache-none',
    row: 'no expirationTimestamp',
    id: 'EX401-CACHE-NO-EXPIRY',
    level: 'MUST',
    show: 'requests',
    title: 'A token without expirationTimestamp: cached for good by a long-lived client',
    source: `${KEP}: "If not present, … cached until the server responds with 401 or the process exits"`,
    sessions: one(token(null), [req(0), req(300), req(300)]),
  },
  {
    key: 'expired-timestamp',
    row: 'expirationTimestamp already past',
    id: 'EX401-EXPIRED-TIMESTAMP',
    level: 'SHOULD',
    show: 'requests',
    title: 'A token whose expirationTimestamp is already past when it arrives (clock skew): how often the plugin runs',
    source: `${KEP}: a credential past its expirationTimestamp is not used from the cache`,
    sessions: one(token(-60), [req(0), req(300), req(300)]),
  },
  {
    key: 'reexec-401',
    row: 're-exec after a 401 (first token refused)',
    id: 'EX401-REEXEC-AFTER-401',
    level: 'SHOULD',
    show: 'requests',
    title:
      'The first token the plugin returns is refused (401), later ones are good: does the client run the plugin again, and when is the new token used?',
    source: `${KEP}: a 401 means the cached credential is no longer good; client-go runs the plugin again for the next request (exec.go maybeRefreshCreds)`,
    sessions: one(token(3600, { rejectFirst: 1 }), [req(0), req(300), req(300)]),
  },
  {
    key: 'revoked',
    row: 'token revoked while cached',
    id: 'EX401-REVOKED-TOKEN',
    level: 'SHOULD',
    show: 'requests',
    title:
      'The token in use is revoked: the API server keeps accepting it for its 10s success cache, then 401; does the client recover?',
    source: `${KEP} (401 → run the plugin again); kube-apiserver: TokenSuccessCacheTTL 10s (pkg/kubeapiserver/options/authentication.go)`,
    // One request right after the revocation (inside the API server's 10s success cache), one after it, one more.
    sessions: one(token(3600), [req(0), { do: 'revoke', afterMs: 200 }, req(1000), req(11_500), req(300)]),
  },
  {
    key: 'expired-token',
    row: 'token expired at the server, not in expirationTimestamp',
    id: 'EX401-SERVER-EXPIRED-TOKEN',
    level: 'SHOULD',
    show: 'requests',
    title:
      'The webhook accepts each token for 5s while the plugin claims an hour: after expiry (and the 10s success cache) the server says 401; does the client recover?',
    source: `${KEP} (401 → run the plugin again); the server, not expirationTimestamp, decides validity`,
    sessions: one(token(3600, { lifetimeMs: 5000 }), [req(0), req(12_000), req(300)]),
  },
  {
    key: 'same-bad-token',
    row: 'plugin returns the same refused token again',
    id: 'EX401-SAME-BAD-TOKEN',
    level: 'SHOULD',
    show: 'requests',
    title:
      'A plugin that keeps returning one token the server refuses: how many runs per request (does the client loop)?',
    source: `${KEP}: one plugin run per 401 (exec.go maybeRefreshCreds), the 401 returned: no retry loop`,
    sessions: one({ kind: 'same-refused-token', claimSeconds: 3600 }, [req(0), req(300), req(300)]),
  },
  {
    key: 'client-cert',
    row: 'client certificate, rotated at expiry (6s)',
    id: 'EX401-CLIENT-CERT-ROTATION',
    level: 'MUST',
    show: 'requests',
    title:
      'clientCertificateData/clientKeyData from the cluster CA, valid 6s: used for TLS client auth; after expiry a new certificate is fetched and used',
    source: `${KEP}: clientCertificateData and clientKeyData authenticate over TLS; expirationTimestamp applies to them as to tokens (exec.go closes connections when the certificate changes)`,
    sessions: one({ kind: 'cert', lifetimeSeconds: 6 }, [req(0), req(300), req(7500), req(300)]),
  },
  {
    key: 'cluster-info',
    row: 'provideClusterInfo and the cluster config extension',
    id: 'EX401-PROVIDE-CLUSTER-INFO',
    level: 'MUST',
    show: 'launch',
    title:
      "With provideClusterInfo the plugin gets spec.cluster (server, CA, config from the cluster's client.authentication.k8s.io/exec extension); without it, none",
    source: `${KEP} (1.20+): "provideClusterInfo … KUBERNETES_EXEC_INFO … spec.cluster"; the extension's payload is spec.cluster.config`,
    sessions: [true, false].map((provideClusterInfo) => ({
      label: provideClusterInfo ? 'provideClusterInfo' : 'without provideClusterInfo',
      user: user({ provideClusterInfo }),
      clusterConfig: CLUSTER_EXTENSION,
      terminal: false,
      plugin: token(3600),
      steps: [req(0)],
    })),
  },
  {
    key: 'interactive',
    row: 'interactiveMode Never / IfAvailable / Always, with and without a terminal',
    id: 'EX401-INTERACTIVE-MODE',
    level: 'MUST',
    show: 'launch',
    title:
      'interactiveMode × terminal: spec.interactive, whether the plugin gets the terminal as stdin, and Always refused without a terminal',
    source: `${KEP} (1.22+): "interactiveMode … Never … IfAvailable … Always"; an Always plugin without a terminal must not be run`,
    sessions: MODES.flatMap((interactiveMode) =>
      [false, true].map((terminal) => ({
        label: `${interactiveMode}, ${terminal ? 'terminal' : 'no terminal'}`,
        user: user({ interactiveMode }),
        terminal,
        plugin: token(3600),
        steps: [req(0)],
      })),
    ),
  },
  {
    key: 'api-version',
    row: 'v1 and v1beta1',
    id: 'EX401-API-VERSION',
    level: 'MUST',
    show: 'launch',
    title:
      "The kubeconfig's exec apiVersion (v1, v1beta1) is the version KUBERNETES_EXEC_INFO carries; the plugin answers in it and the request succeeds",
    source: `${KEP}: KUBERNETES_EXEC_INFO is the ExecCredential in exec.apiVersion, and the answer must be in that version`,
    sessions: VERSIONS.map((apiVersion) => ({
      label: apiVersion.split('/')[1]!,
      user: user({ apiVersion }),
      terminal: false,
      plugin: token(3600),
      steps: [req(0)],
    })),
  },
];
