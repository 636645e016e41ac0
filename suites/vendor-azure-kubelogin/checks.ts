// The vendor-azure-kubelogin suite's checks: the real, unmodified Azure
// kubelogin (`kubelogin get-token`, what AKS kubeconfigs run) in each
// non-browser login mode, through every real client, against a fake Entra ID
// tenant and a kube-apiserver whose JWT authenticator trusts it; its token
// cache and what `kubelogin convert-kubeconfig` writes. AZKL_MATRIX names each
// check's mode and client for docs/vendors.md's matrix.
import type { Check } from '../../src/run/kit.ts';
import { CLIENTS, MODES, type Client, type Mode } from './plan.ts';

const SRC = 'Azure/kubelogin v0.2.22';
const MODE_TEXT: Record<Mode, string> = {
  spn: 'a service principal with its client secret (spn)',
  ropc: "a user's password (ropc)",
  workloadidentity: "workload identity (the cluster's service-account token for api://AzureADTokenExchange)",
  msi: 'a managed identity (msi, App Service endpoint)',
};
const MODE_SOURCE: Record<Mode, string> = {
  spn: 'clientsecretcredential.go (azidentity ClientSecretCredential)',
  ropc: 'usernamepasswordcredential.go (azidentity UsernamePasswordCredential, MSAL user realm then password grant)',
  workloadidentity: 'workloadidentitycredential.go (AZURE_FEDERATED_TOKEN_FILE as client_assertion)',
  msi: 'msicredential.go (azidentity ManagedIdentityCredential)',
};
const ID: Record<Mode, string> = { spn: 'SPN', ropc: 'ROPC', workloadidentity: 'WORKLOAD-IDENTITY', msi: 'MSI' };
const CLIENT_ID: Record<Client, string> = {
  kubectl: 'KUBECTL',
  'client-go': 'CLIENT-GO',
  'client-node': 'CLIENT-NODE',
  python: 'PYTHON',
};

/** One check per mode × client: the client authenticates with the token kubelogin got in that mode. */
export const LOGIN: Record<Mode, Record<Client, Check>> = Object.fromEntries(
  MODES.map((m) => [
    m,
    Object.fromEntries(
      CLIENTS.map((c): [Client, Check] => [
        c,
        {
          id: `AZKL-${ID[m]}-${CLIENT_ID[c]}`,
          title: `${c} runs kubelogin get-token with ${MODE_TEXT[m]} as AKS configures it, and kube-apiserver's JWT authenticator accepts the token as the principal it names`,
          level: 'MUST',
          source: `KEP-541 (the client execs the plugin and sends its token); ${SRC} pkg/internal/token/${MODE_SOURCE[m]}; KEP-3331 structured JWT authenticator`,
        },
      ]),
    ),
  ]),
) as Record<Mode, Record<Client, Check>>;

export const CACHE: Check = {
  id: 'AZKL-TOKEN-CACHE',
  title:
    'A second kubectl run in the same home is answered from the MSAL token cache (no request to Entra ID, the same token) where the kernel keyring is usable, as the model says',
  level: 'SHOULD',
  source: `${SRC} cmd/token.go (persistent cache), azidentity/cache (a JWE file keyed in the kernel user keyring), MSAL AccessToken.Validate (5 minutes before expiry)`,
};

export const CACHE_IGNORES_SECRET: Check = {
  id: 'AZKL-CACHE-NEEDS-THE-CREDENTIAL',
  title:
    'A cached token is answered only to a run that holds the credential which obtained it: a user whose client secret is wrong gets no token from the cache, as it gets none from Entra ID',
  level: 'SHOULD',
  source: `KEP-541: the plugin returns credentials for the configured identity; ${SRC}: MSAL keys the cache by authority, client id and scope (msalCacheKey), not by the secret`,
};

export const WRONG_SECRET: Check = {
  id: 'AZKL-WRONG-SECRET-EXPLAINED',
  title:
    'With a wrong client secret and an empty cache Entra ID refuses (AADSTS7000215): kubelogin exits non-zero naming the error, and the client sends no request',
  level: 'MUST',
  source: `KEP-541: a failing plugin exits non-zero with the reason on stderr; ${SRC} execCredentialPlugin.go`,
};

export const EXEC_INFO: Check = {
  id: 'AZKL-FOLLOWS-EXEC-INFO',
  title:
    'A client.authentication.k8s.io/v1 kubeconfig user gets a v1 ExecCredential (kubelogin follows KUBERNETES_EXEC_INFO), which kubectl accepts',
  level: 'SHOULD',
  source: `KEP-541: the plugin answers in the apiVersion KUBERNETES_EXEC_INFO names; ${SRC} execCredentialWriter.go:31-88`,
};

export const ENV_OVER_FLAGS: Check = {
  id: 'AZKL-ENV-OVER-FLAGS',
  title:
    "The environment overrides the kubeconfig, as kubelogin documents: AZURE_CLIENT_ID in the user's environment wins over --client-id in the exec args",
  level: 'SHOULD',
  source: `${SRC} pkg/internal/token/options.go UpdateFromEnv (unless --disable-environment-override); docs/book/src/concepts/login-modes/sp.md`,
};

export const CONVERT: Check = {
  id: 'AZKL-CONVERT-KUBECONFIG',
  title:
    'kubelogin convert-kubeconfig -l spn turns the devicecode user `az aks get-credentials` writes into the exec the model says (v1beta1, get-token --login spn …), and kubectl authenticates with the converted user',
  level: 'MUST',
  source: `${SRC} pkg/internal/converter/convert.go:216-520`,
};

export const CONVERT_NO_SECRET: Check = {
  id: 'AZKL-CONVERT-KEEPS-SECRETS-OUT',
  title:
    'convert-kubeconfig keeps a client secret out of the kubeconfig it writes (it belongs in the environment, where kubelogin reads it)',
  level: 'SHOULD',
  source: `KEP-541: exec args are not secret (they show in ps and in the kubeconfig); ${SRC} convert.go writes --client-secret into args when given`,
};

export const VENDOR_AZURE_KUBELOGIN_CHECKS: Check[] = [
  ...MODES.flatMap((m) => CLIENTS.map((c) => LOGIN[m][c])),
  CACHE,
  CACHE_IGNORES_SECRET,
  WRONG_SECRET,
  EXEC_INFO,
  ENV_OVER_FLAGS,
  CONVERT,
  CONVERT_NO_SECRET,
];

/** Each check's mode and client, for docs/vendors.md's matrix (checks of one mode through kubectl unless said). */
export const AZKL_MATRIX: Record<string, { mode: Mode; client: Client }> = {
  ...Object.fromEntries(MODES.flatMap((m) => CLIENTS.map((c) => [LOGIN[m][c].id, { mode: m, client: c }]))),
  ...Object.fromEntries(
    [CACHE, CACHE_IGNORES_SECRET, WRONG_SECRET, EXEC_INFO, ENV_OVER_FLAGS, CONVERT, CONVERT_NO_SECRET].map((c) => [
      c.id,
      { mode: 'spn' as const, client: 'kubectl' as const },
    ]),
  ),
};
