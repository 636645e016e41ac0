// The vendor-oci suite's checks: the real `oci ce cluster generate-token`
// (oci-cli from PyPI, unmodified, in its own venv), the exec plugin OKE
// kubeconfigs run, through every real client against a kube-apiserver whose
// token webhook asks (fake) Container Engine about each token, as OKE's
// authenticator does. OCI_MATRIX names each login check's client for
// docs/vendors.md's matrix.
import type { Check } from '../../src/run/kit.ts';
import { CLIENTS, type Client } from './plan.ts';

const SRC = 'oci-cli 3.95.1 services/container_engine/src/oci_cli_container_engine/containerengine_cli_extended.py';
const CLIENT_ID: Record<Client, string> = {
  kubectl: 'KUBECTL',
  'client-go': 'CLIENT-GO',
  'client-node': 'CLIENT-NODE',
  python: 'PYTHON',
};

/** One check per client: the client runs generate-token with an API-key profile and the API server takes its token. */
export const LOGIN: Record<Client, Check> = Object.fromEntries(
  CLIENTS.map((c): [Client, Check] => [
    c,
    {
      id: `OCI-LOGIN-${CLIENT_ID[c]}`,
      title: `${c} runs oci ce cluster generate-token as OKE's kubeconfig configures it (an API-key profile), and the API server accepts the token as the key's user`,
      level: 'MUST',
      source: `KEP-541 (the client execs the plugin and sends its token); ${SRC}:30-90 (the locally signed cluster_request); OCI request signatures v1`,
    },
  ]),
) as Record<Client, Check>;

export const FRESH: Check = {
  id: 'OCI-FRESH-SIGNATURE',
  title:
    'Each exec signs the request again (no cache: two calls, two runs; the tokens differ unless signed in the same second, the Date being whole seconds) and claims an expiry 4 minutes after its run, inside the signature window Container Engine allows',
  level: 'SHOULD',
  source: `KEP-541 (expirationTimestamp: the client re-execs after it); ${SRC}:78 (utcnow + 4 min); OCI: a signed request's Date within 5 minutes`,
};

export const UNREGISTERED_KEY: Check = {
  id: 'OCI-UNREGISTERED-KEY',
  title:
    "A profile whose key the tenancy does not hold still gets a token (signing is local), and the API server refuses it on Container Engine's 401: never accepted",
  level: 'MUST',
  source: `${SRC} (no network call with API-key auth); OCI request signatures (keyId <tenancy>/<user>/<fingerprint>); KEP-541 (a refused token is a 401)`,
};

export const MISSING_KEY: Check = {
  id: 'OCI-MISSING-KEY',
  title: 'A profile whose key_file is not there makes the plugin fail with no credential: the client sends no request',
  level: 'SHOULD',
  source: `KEP-541 (a failing plugin: the client reports the error); ${SRC} (the SDK's signer loads key_file)`,
};

export const EXEC_INFO_V1: Check = {
  id: 'OCI-EXEC-INFO-V1',
  title:
    'For a v1 kubeconfig user (KUBERNETES_EXEC_INFO asks client.authentication.k8s.io/v1) the plugin answers in v1, as a client asks',
  level: 'SHOULD',
  source: `KEP-541 (the plugin answers in the apiVersion of KUBERNETES_EXEC_INFO); ${SRC}:80-88 (a literal v1beta1 template)`,
};

export const VENDOR_OCI_CHECKS: Check[] = [
  ...CLIENTS.map((c) => LOGIN[c]),
  FRESH,
  UNREGISTERED_KEY,
  MISSING_KEY,
  EXEC_INFO_V1,
];

/** Each check's mode and client, for docs/vendors.md's matrix (an API-key profile; through kubectl unless said). */
export const OCI_MATRIX: Record<string, { mode: 'api-key'; client: Client }> = {
  ...Object.fromEntries(CLIENTS.map((c) => [LOGIN[c].id, { mode: 'api-key' as const, client: c }])),
  ...Object.fromEntries(
    [FRESH, UNREGISTERED_KEY, MISSING_KEY, EXEC_INFO_V1].map((c) => [
      c.id,
      { mode: 'api-key' as const, client: 'kubectl' as const },
    ]),
  ),
};
