// The vendor-azure-kubelogin suite's plan: the AKS app ids every kubeconfig
// names, the four non-browser login modes with the exec args
// `kubelogin convert-kubeconfig -l <mode>` writes for each (the model's
// convertedArgs) and the environment the user's shell or pod gives the plugin,
// and the kubeconfig `az aks get-credentials` writes. Data only: no I/O.
import { convertedArgs, type AzureLoginMode } from '../../src/model/azure-kubelogin.ts';

/** The AKS AAD server app: every AKS kubeconfig's --server-id, the tokens' aud. */
export const SERVER_ID = '6dae42f8-4368-4678-94ff-3960e28e3630';
/** The AKS AAD client app `az aks get-credentials` names (a public client users sign in through). */
export const AKS_CLIENT_ID = '80faf920-1908-4b52-b5ef-a8e7bedfc67a';
/** kube-apiserver's JWT authenticator: username = this + the token's oid. */
export const USERNAME_PREFIX = 'aad:';
export const TOKEN_LIFETIME_S = 3600;
export const WORKLOAD = { namespace: 'default', serviceAccount: 'credprov-aks-workload' } as const;
export const AUTHORITY_HOST = 'https://login.microsoftonline.com/';

export const MODES = ['spn', 'ropc', 'workloadidentity', 'msi'] as const satisfies readonly AzureLoginMode[];
export type Mode = (typeof MODES)[number];
export const CLIENTS = ['kubectl', 'client-go', 'client-node', 'python'] as const;
export type Client = (typeof CLIENTS)[number];

/** What every kubectl call asks: a SelfSubjectReview (any authenticated user may), so its answer names the user. */
export const WHOAMI_ARGS = ['auth', 'whoami', '-o', 'json'];
export const WHOAMI_STATUS = 201;
/** What the client probes GET: discovery, which system:authenticated may read. */
export const CLIENT_PATH = '/apis';
export const CLIENT_STATUS = 200;
export const CALL_TIMEOUT_MS = 90_000;

/** The lab's principals as the plan needs them (src/vendor-labs/azure-kubelogin-lab.ts makes them). */
export interface Principals {
  tenantId: string;
  spn: { clientId: string; secret: string };
  ropc: { clientId: string; username: string; password: string };
  workload: { clientId: string };
  msi: { identityHeader: string };
  identityEndpoint: string;
  /** The CA of the fake login.microsoftonline.com: the user's shell trusts it (SSL_CERT_FILE). */
  caFile: string;
}

/** A user's exec: the args convert-kubeconfig writes for the mode, and what the user's environment gives the plugin. */
export interface ModeExec {
  args: string[];
  env: Record<string, string>;
}

/** The devicecode user `az aks get-credentials` writes (its exec args), which convert-kubeconfig starts from. */
export function aksDevicecodeArgs(tenantId: string): string[] {
  return [
    'get-token',
    '--environment',
    'AzurePublicCloud',
    '--server-id',
    SERVER_ID,
    '--client-id',
    AKS_CLIENT_ID,
    '--tenant-id',
    tenantId,
    '--login',
    'devicecode',
  ];
}

/**
 * Each mode's exec, as AKS documents it: the args of `convert-kubeconfig -l <mode>` (spn and ropc
 * with their ids; the secret and the password from the environment, kubelogin's documented variables),
 * workload identity's AZURE_* as the AKS webhook injects them, msi from App Service's endpoint.
 */
export function modeExec(mode: Mode, p: Principals, federatedTokenFile: string): ModeExec {
  const existingArgs = aksDevicecodeArgs(p.tenantId);
  const trust = { SSL_CERT_FILE: p.caFile };
  switch (mode) {
    case 'spn':
      return {
        args: convertedArgs({ login: 'spn', existingArgs, flags: { clientId: p.spn.clientId } }),
        env: { ...trust, AAD_SERVICE_PRINCIPAL_CLIENT_SECRET: p.spn.secret },
      };
    case 'ropc':
      return {
        args: convertedArgs({ login: 'ropc', existingArgs, flags: { clientId: p.ropc.clientId } }),
        env: { ...trust, AAD_USER_PRINCIPAL_NAME: p.ropc.username, AAD_USER_PRINCIPAL_PASSWORD: p.ropc.password },
      };
    case 'workloadidentity':
      return {
        args: convertedArgs({ login: 'workloadidentity', existingArgs, flags: {} }),
        env: {
          ...trust,
          AZURE_CLIENT_ID: p.workload.clientId,
          AZURE_TENANT_ID: p.tenantId,
          AZURE_FEDERATED_TOKEN_FILE: federatedTokenFile,
          AZURE_AUTHORITY_HOST: AUTHORITY_HOST,
        },
      };
    case 'msi':
      return {
        args: convertedArgs({ login: 'msi', existingArgs, flags: {} }),
        env: { ...trust, IDENTITY_ENDPOINT: p.identityEndpoint, IDENTITY_HEADER: p.msi.identityHeader },
      };
  }
}

/** The secrets a mode's exec carries (for redaction of argument lists in evidence). */
export const SECRET_ENV = ['AAD_SERVICE_PRINCIPAL_CLIENT_SECRET', 'AAD_USER_PRINCIPAL_PASSWORD', 'IDENTITY_HEADER'];
