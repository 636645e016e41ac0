// The vendor-oci suite's plan: the region and cluster OKE kubeconfigs name,
// the exec stanza `oci ce cluster create-kubeconfig` writes (a v1beta1 user
// running `oci ce cluster generate-token --cluster-id … --region …`), the
// real clients that run it and the profiles a user's home may hold. Data only.

/** The region of OKE's documented examples (us-ashburn-1); the token's host is containerengine.<region>.oraclecloud.com. */
export const REGION = 'us-ashburn-1';
/** The line OCI's console appends to a private key it generates; oci-cli warns about a key without it. */
export const KEY_LABEL = 'OCI_API_KEY';

export const CLIENTS = ['kubectl', 'client-go', 'client-node', 'python'] as const;
export type Client = (typeof CLIENTS)[number];

/** What an OKE kubeconfig's user carries (oci-cli's create-kubeconfig: apiVersion v1beta1, command oci). */
export const OKE_EXEC_API_VERSION = 'client.authentication.k8s.io/v1beta1';
export const V1 = 'client.authentication.k8s.io/v1';

export function generateTokenArgs(clusterId: string, region = REGION): string[] {
  return ['ce', 'cluster', 'generate-token', '--cluster-id', clusterId, '--region', region];
}

/** The profiles a home can hold: the key OCI knows, a key it does not, a key_file that is not there. */
export type Profile = 'registered' | 'unregistered' | 'missing';

/** kubectl asks for a SelfSubjectReview (201, naming the user); a probe GETs discovery (200). */
export const WHOAMI_STATUS = 201;
export const CLIENT_PATH = '/apis';
export const CLIENT_STATUS = 200;
/** A Python start per exec takes seconds on a loaded 2-core runner. */
export const CALL_TIMEOUT_MS = 120_000;
/** How far the claimed expiry may lie beyond the run's start + 4 min: the plugin stamps it after start-up and signing. */
export const EXPIRY_SLACK_MS = 60_000;
