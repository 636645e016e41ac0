// The vendor-aws-iam-authenticator suite's checks: the real, unmodified
// aws-iam-authenticator as a client-go exec plugin (`token`) and as
// kube-apiserver's token webhook (`server`), against fake STS on loopback.
import { AWS_CLI_SOURCE, AWS_CLI_VERSION, IAM_AUTHENTICATOR_VERSION, type Check } from '../../src/run/kit.ts';

const V = `aws-iam-authenticator ${IAM_AUTHENTICATOR_VERSION}`;
const VERIFY = `${V} pkg/token/token.go Verify`;
const KEP541 = 'KEP-541: client-go runs users[].user.exec and sends status.token as the bearer token';
const WEBHOOK =
  'kube-apiserver --authentication-token-webhook-config-file: a TokenReview the webhook does not authenticate is a 401';

export const MAPPED: Check = {
  id: 'IAM-MAPPED-USER-200',
  title:
    "kubectl with a user that execs `aws-iam-authenticator token -i <cluster id>` (upstream's v1beta1 kubeconfig) and a mapped IAM user's keys gets 200",
  level: 'MUST',
  source: `${KEP541}; ${V} pkg/server/server.go authenticateEndpoint: STS GetCallerIdentity, then mapUsers`,
};

export const WHOAMI: Check = {
  id: 'IAM-WHOAMI-MAPPING',
  title: '`kubectl auth whoami` shows the username and groups of the mapUsers entry (and system:authenticated)',
  level: 'MUST',
  source: `${V} pkg/mapper/file: the mapping's username and groups become the TokenReview user; kube-apiserver adds system:authenticated`,
};

export const EXEC_V1: Check = {
  id: 'IAM-EXEC-INFO-V1',
  title:
    'A client.authentication.k8s.io/v1 user works too: the plugin answers in the version KUBERNETES_EXEC_INFO names',
  level: 'SHOULD',
  source: `KEP-541: a plugin answers in the apiVersion of KUBERNETES_EXEC_INFO; ${V} pkg/token/token.go FormatJSON`,
};

export const EXPIRY: Check = {
  id: 'IAM-EXPIRY-BEFORE-PRESIGN-ENDS',
  title:
    "The plugin's expirationTimestamp falls before the token's presigned URL stops being honoured (X-Amz-Date + 15 min), so client-go re-execs it in time",
  level: 'SHOULD',
  source: `KEP-541: client-go re-execs the plugin once expirationTimestamp passes; ${V} pkg/token/token.go: presignedURLExpiration 15m, token expiry 1 min earlier`,
};

export const UNKNOWN_KEY: Check = {
  id: 'IAM-UNKNOWN-KEY-401',
  title: 'A token the plugin signs with an access key STS never issued gets 401 (STS: InvalidClientTokenId)',
  level: 'MUST',
  source: `${VERIFY}: STS must answer 200; ${WEBHOOK}`,
};

export const WRONG_SECRET: Check = {
  id: 'IAM-WRONG-SECRET-401',
  title: 'A token signed with a known access key but the wrong secret gets 401 (STS: SignatureDoesNotMatch)',
  level: 'MUST',
  source: `${VERIFY}: STS must answer 200; ${WEBHOOK}`,
};

export const UNMAPPED: Check = {
  id: 'IAM-UNMAPPED-401',
  title:
    'A valid token of an IAM identity no mapping names gets 401 (STS says who it is; the authenticator does not map it)',
  level: 'MUST',
  source: `${V} pkg/server/server.go doMapping: "identity is not mapped"; ${WEBHOOK}`,
};

export const OTHER_CLUSTER: Check = {
  id: 'IAM-OTHER-CLUSTER-401',
  title:
    'A token the plugin made for another cluster id is refused: the server sends its own x-k8s-aws-id, so STS finds the signature wrong',
  level: 'MUST',
  source: `${VERIFY}: req.Header.Set(x-k8s-aws-id, v.clusterID) before the GET (replay protection across clusters)`,
};

export const UNSIGNED_ID: Check = {
  id: 'IAM-UNSIGNED-CLUSTER-ID-401',
  title: 'A presigned GetCallerIdentity that does not sign x-k8s-aws-id is refused before STS is called',
  level: 'MUST',
  source: `${VERIFY}: hasSignedClusterIDHeader`,
};

export const EXPIRED: Check = {
  id: 'IAM-EXPIRED-401',
  title: 'A token whose X-Amz-Date is more than 15 minutes old is refused before STS is called',
  level: 'MUST',
  source: `${VERIFY}: "X-Amz-Date parameter is expired" (presignedURLExpiration 15m)`,
};

export const CRAFTED_CONTROL: Check = {
  id: 'IAM-CRAFTED-TOKEN-CONTROL-200',
  title:
    "A token credprov presigns itself, dated now, is accepted like the plugin's: the crafted expired and unsigned-header tokens differ from it only in what their case changes",
  level: 'MUST',
  source: `${VERIFY} (the same checks as for the plugin's tokens); AWS SigV4 query signing`,
};

export const STS_CLOCK: Check = {
  id: 'IAM-STS-WINDOW-401',
  title:
    "A fresh token that STS receives more than 15 minutes after its X-Amz-Date (STS's clock ahead) gets 401: STS enforces the window too",
  level: 'SHOULD',
  source:
    'STS presigned GetCallerIdentity: honoured for 15 min after X-Amz-Date ("Signature expired"); aws-iam-authenticator: STS errors are a 403 TokenReview',
};

export const NO_CREDENTIALS: Check = {
  id: 'IAM-NO-CREDENTIALS-EXPLAINED',
  title:
    "Without AWS credentials the plugin exits non-zero and says why on stderr, kubectl sends no request, and the plugin's IMDS lookup (forced on) is caught on loopback",
  level: 'SHOULD',
  source: `KEP-541: a plugin that cannot get a credential exits non-zero and explains on stderr; ${V} pkg/token/token.go GetWithOptions: "could not get token", WithEC2IMDSClientEnableState(ClientEnabled)`,
};

export const TOKEN_BYTES: Check = {
  id: 'IAM-TOKEN-IS-THE-PRESIGNED-URL',
  title:
    "The plugin's token is byte for byte credprov's SigV4 presign of GetCallerIdentity with the same key, region, cluster id and X-Amz-Date",
  level: 'SHOULD',
  source: `${V} pkg/token/token.go GetWithSTS (PresignGetCallerIdentity, X-Amz-Expires 60, x-k8s-aws-id signed); AWS SigV4 query signing`,
};

/** The Go plugin's checks, one per requirement. */
export const GO_TOKEN_CHECKS = {
  mapped: MAPPED,
  whoami: WHOAMI,
  execV1: EXEC_V1,
  expiry: EXPIRY,
  unknownKey: UNKNOWN_KEY,
  wrongSecret: WRONG_SECRET,
  unmapped: UNMAPPED,
  otherCluster: OTHER_CLUSTER,
  stsWindow: STS_CLOCK,
  noCredentials: NO_CREDENTIALS,
  tokenBytes: TOKEN_BYTES,
} as const satisfies Record<string, Check>;
export type TokenCommandCheck = keyof typeof GO_TOKEN_CHECKS;

/**
 * The same requirement with `aws eks get-token` (awscli, Python) making the token in the
 * Go plugin's place: same lab, same server, same prediction, so a difference between the
 * two presigners shows as one check failing and not the other.
 */
function viaAwsCli(c: Check): Check {
  return {
    ...c,
    id: c.id.replace(/^IAM-/, 'IAM-AWSCLI-'),
    title: `\`aws eks get-token\` (awscli ${AWS_CLI_VERSION}) in place of the Go plugin: ${c.title}`,
    source: `${c.source}; ${AWS_CLI_SOURCE}`,
  };
}

export const AWS_CLI_TOKEN_CHECKS = Object.fromEntries(
  Object.entries(GO_TOKEN_CHECKS).map(([k, c]) => [k, viaAwsCli(c)]),
) as Record<TokenCommandCheck, Check>;
// Where the Go title names the Go command or its IMDS quirk, awscli's says its own.
AWS_CLI_TOKEN_CHECKS.mapped = {
  ...AWS_CLI_TOKEN_CHECKS.mapped,
  title:
    "kubectl with a user that execs `aws eks get-token --cluster-name <cluster id>` (AWS's `aws eks update-kubeconfig` form) and a mapped IAM user's keys gets 200",
};
AWS_CLI_TOKEN_CHECKS.noCredentials = {
  ...AWS_CLI_TOKEN_CHECKS.noCredentials,
  title:
    '`aws eks get-token` without AWS credentials exits non-zero and says why on stderr, kubectl sends no request, and IMDS is not asked (AWS_EC2_METADATA_DISABLED is honoured)',
  source: `KEP-541: a plugin that cannot get a credential exits non-zero and explains on stderr; ${AWS_CLI_SOURCE}; awscli/botocore/credentials.py InstanceMetadataProvider (botocore is vendored inside awscli 1.46)`,
};

export const VENDOR_IAM_CHECKS: Check[] = [
  MAPPED,
  WHOAMI,
  EXEC_V1,
  EXPIRY,
  UNKNOWN_KEY,
  WRONG_SECRET,
  UNMAPPED,
  OTHER_CLUSTER,
  UNSIGNED_ID,
  EXPIRED,
  CRAFTED_CONTROL,
  STS_CLOCK,
  NO_CREDENTIALS,
  TOKEN_BYTES,
  ...Object.values(AWS_CLI_TOKEN_CHECKS),
];
