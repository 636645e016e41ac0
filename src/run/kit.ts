// The suite kit: everything a suite under suites/ may use, from one module.
// docs/writing-a-suite.md walks through a suite written with it. A suite
// imports this, src/model, src/matching, src/api and src/versions, and nothing
// else of credprov's (src/core/import-graph.test.ts holds it to that): it
// reaches the environment only through SuiteRun/CaseContext (fields and
// capabilities of Environment), never through a provider's own modules.

// ---- a suite, its cases and their verdicts -------------------------------------
export type { PreparedSuite, Stoppable, Suite, SuiteRun, SuiteSetup } from './suite.ts';
export { caseOf, runCases, type Case, type CaseContext, type RunCasesOptions } from './cases.ts';
export { agrees, judge, type Judgement, type Prediction } from './prediction.ts';
export { cannotJudge, harnessFailed, notApplicable, notRun } from './results.ts';
export type { Check, CheckResult, Evidence, Level } from '../report/model.ts';

// ---- the environment: fields, capabilities, the kubelet --------------------------
export type { Capability, Environment, KubeletChange, KubeletFiles } from '../cluster/provider.ts';
export { kubeletFilesOf, clusterCAOf, kubeletVersionOf, twoNodesOf } from './environment-fields.ts';
export { clusterOf, type ClusterView } from './cluster-view.ts';
export { ensureKubelet } from './kubelet-builds.ts';
export { tryRestartKubelet, type KubeletStart } from './kubelet-restart.ts';
export { assertKubeletLoadedConfig, expectedConfigHash, observeConfigHash } from './config-loaded.ts';

// ---- the node behind the kubelet's back, and the kubelet's own state (KEP-2535) ------
export { importImages, imageNames, removeImage, removeImagesNamed } from './node-images.ts';
export {
  imageManagerDir,
  IntentWatcher,
  readRecord,
  readRecords,
  type RecordFile,
  type RecordsListing,
} from './pull-records.ts';
export { parseMetrics, scrapeMetrics, type Metrics } from './kubelet-metrics.ts';
export { kubeletBinaryOf, validateKubeletConfig, type ConfigValidation } from './kubelet-validation.ts';

// ---- the cluster: namespaces, RBAC grants ----------------------------------------------
export { createNamespace, runNamespace, type RunNamespace, type TestNamespace } from './namespace.ts';
export {
  bindClusterRole,
  grantGroupRead,
  grantNodesAudience,
  userMay,
  nodeMayCreateToken,
  nodeMayRequestAudience,
  type AudienceGrant,
  type ReadGrant,
} from './grants.ts';

// ---- service-account tokens (KEP-4412): pods, the API server as an issuer, tokens as a kubelet ----
export {
  createSaPod,
  mirrorPodName,
  observePod,
  removeStaticPod,
  writeStaticPod,
  type ObservedPod,
  type PullOutcome,
  type SaPod,
} from './sa-pods.ts';
export { clusterIdentity } from './cluster-identity.ts';
export {
  refusalStage,
  requestPodToken,
  whoAmI,
  type Identity,
  type NodeTokenView,
  type PodTokenAnswer,
  type PodTokenRequest,
} from './node-tokens.ts';
export { klogErr, kubeletLogLines } from './kubelet-log.ts';
export { startTokenRegistry } from './token-registry.ts';
export {
  EXCHANGE_USERNAME,
  grantedAccess,
  ServiceAccountTokenAuth,
  type AccessRule,
  type ServiceAccountIdentity,
  type StartedRegistry,
  type Validation,
} from '../../registry/index.ts';
export { Redactor } from '../core/redact.ts';

// ---- clients of exec credential plugins (KEP-541) --------------------------------------
export {
  CLIENT_NAMES,
  EXEC_CLIENT_NAMES,
  clientLogEvidence,
  clientNotRun,
  clientProbes,
  kubectlAs,
  runsDuring,
  startClientSession,
  stepTimes,
  type ClientName,
  type ExecClientName,
  type ClientSession,
  type ClientSessionOptions,
  type ClientStep,
  type KubectlAttempt,
  type ObservedStep,
  type ProbeAvailability,
  type ProbeResponse,
} from './client-session.ts';
export { probeKubeconfig } from '../clients/kubeconfig.ts';
export { defaultClientEnv } from '../clients/common.ts';
export {
  ensureKubectl,
  kubectlWithKuberc,
  serviceAccountToken,
  type KubectlBuildContext,
  type KubercRun,
} from './kubectl-kuberc.ts';
export type { ClientProbe } from '../clients/probe.ts';
export { bearerRequest, selfSubjectReview, type BearerAnswer } from './bearer.ts';
export {
  ensureAuthenticationConfig,
  ensureTokenWebhookFiles,
  EXEC_PLUGIN_GROUP,
  jwtUsernameFor,
  startOidcIssuer,
  startTokenWebhookFor,
  TokenBook,
  tokenFingerprint,
  type StartedOidcIssuer,
  type StartedTokenWebhook,
  type TokenWebhookFiles,
} from './apiserver-authn.ts';

// ---- registries, images, fake providers, pods ---------------------------------------
export {
  answer,
  fleetMembers,
  kubeletEvidence,
  prepareFleet,
  pullFailure,
  runPod,
  startLabRegistry,
  startPublicRegistry,
  type FakeInvocation,
  type Fleet,
  type FleetMember,
  type LabRegistry,
  type PodRun,
  type PullResult,
  type ScenarioFile,
  validateScenario,
} from './lab.ts';
export {
  containerLog,
  createPod,
  deletePod,
  podEventAt,
  podEvents,
  podOutcome,
  waitForPodEvents,
  waitForPodOutcome,
  watchPod,
  type PodEvent,
  type PodOptions,
  type PodOutcome,
} from './pods.ts';
export {
  ACCEPTED_UNNAMED,
  buildImage,
  busyboxImage,
  credentialsSeen,
  type BuiltImage,
  type RecordingProxy,
  type RegistryRequest,
} from '../../registry/index.ts';
export {
  countEvents,
  firstPull,
  pullAfterRetry,
  pullOutcomeOf,
  pullRecovered,
  type ObservedPull,
} from './pod-pulls.ts';
export {
  containerOutcomeOf,
  decisiveEvent,
  deletePodBatch,
  runPodBatch,
  type BatchPod,
  type BatchPodRun,
  type ContainerRun,
} from './pod-batch.ts';
export { imageVariant, multiImageArchive } from './image-variants.ts';
export {
  authTrail,
  parseAuthTrail,
  parsePullAttempts,
  pullAttemptsSince,
  registryExcerpt,
  type AuthAttempt,
  type PullAttempt,
} from './registry-auth-log.ts';
export { execsOf, runPodWatching, type PodWindow } from './pod-window.ts';
export { reachFromPlugins, routeRegistry, type MirrorOf, type RouteTarget } from './registry-routes.ts';
export { pluginDir } from './plugin-dir.ts';
export { tokenFilePluginProgram } from './token-file-plugin.ts';
export {
  ensureVersionedPlugins,
  readVersionedExecs,
  versionedPluginEnv,
  type VersionedExec,
} from '../plugin/versioned-plugin.ts';
export { liveMatchingSuite, predictImage, type FakeAnswer, type LiveCase } from './live-matching.ts';
export {
  applyObjects,
  deleteServiceAccount,
  listServiceAccounts,
  mergePatchPod,
  readNode,
  readPod,
  readSecret,
  readServiceAccount,
  refusalOf,
  uidOf,
  uidsOf,
  type UpdateOutcome,
} from './objects.ts';
export {
  createPullSecret,
  dockerConfigJson,
  pullSecret,
  serviceAccount,
  type Login,
  type PullSecretSpec,
} from './pull-secret.ts';

// ---- time, waiting, windows --------------------------------------------------------
export { poll, sleep, sleepUntil, waitFor, systemClock, type Clock } from '../core/time.ts';
export { step, type Progress } from '../core/progress.ts';
export {
  CommandError,
  ConfigError,
  CredprovError,
  errorMessage,
  TimeoutError,
  type FieldProblem,
} from '../core/errors.ts';
export { mapPool } from '../core/pool.ts';
export { goDurationMs } from '../core/duration.ts';
export { linesSince, since, type Window } from './window.ts';
export { PartsInOrder } from './parts-in-order.ts';
export { uniqueSuffix } from './names.ts';

// ---- vendor plugins (unmodified), their labs and fake clouds, recording wrappers ----
export { vendorPlugin } from './vendor-plugins.ts';
export { cacheDir } from '../core/paths.ts';
export { parseGoDuration } from '../core/duration.ts';
export {
  installRecordingWrapper,
  invocationEvidence,
  readWrappedInvocations,
  redactWrapperLog,
  type WrappedInvocation,
} from '../plugin/recording-wrapper.ts';
export {
  answerOf,
  execRunEvidence,
  readExecRuns,
  tokenOf,
  type PluginAnswer,
  type RecordedExecRun,
} from '../plugin/exec-recording-wrapper.ts';
export { saTokenGates, tokenAttributesFor } from '../api/credentialprovider/for-version.ts';
export {
  ECR_PLUGIN,
  ECR_PLUGIN_VERSION,
  ECR_RECIPE,
  ECR_ROLE_ANNOTATION,
  ECR_SOURCE,
  ecrHost,
  ecrPluginEnv,
  ecrProvider,
  ecrRegionOf,
  ecrTokenAttributes,
  type FakeAwsEndpoints,
} from '../plugin/vendors/ecr.ts';
export {
  ACR_CLIENT_ID_ANNOTATION,
  ACR_PLUGIN,
  ACR_PLUGIN_VERSION,
  ACR_RECIPE,
  ACR_RESOURCE,
  ACR_SOURCE,
  ACR_TENANT_ID_ANNOTATION,
  ACR_TOKEN_USERNAME,
  predictAcrAnswer,
  type AcrAnswer,
  type AzureJson,
} from '../plugin/vendors/acr.ts';
export { AWS_CLI_SOURCE, AWS_CLI_VERSION, ensureAwsCli } from '../plugin/vendors/aws-cli.ts';
export { IAM_AUTHENTICATOR_VERSION } from '../plugin/vendors/aws-iam-authenticator.ts';
export {
  GKE_CACHE_FILE,
  GKE_PLUGIN_SOURCE,
  GKE_PLUGIN_VERSION,
  GKE_SCOPES,
  GKE_TOKEN_TRIES,
} from '../plugin/vendors/gke-gcloud-auth-plugin.ts';
export { KUBELOGIN_SOURCE, KUBELOGIN_VERSION } from '../plugin/vendors/kubelogin.ts';
export { FakeAws, newIamUser, type FakeAwsRequest } from '../fake-clouds/aws/index.ts';
export {
  AAD_HOST,
  FakeAzure,
  FakeAzureAd,
  serveFakeLoginServer,
  type FakeAzureRequest,
} from '../fake-clouds/azure/index.ts';
export { JWT_BEARER_GRANT, MAX_ASSERTION_LIFETIME_S, type GoogleTokenRequest } from '../fake-clouds/google/index.ts';
export { clusterOidc } from '../vendor-labs/cluster-oidc.ts';
export { gcloudInvocations } from '../vendor-labs/gcloud-sdk.ts';
export { startGkeLab, V1, type GcloudSetup, type GkeAccount, type GkeLab } from '../vendor-labs/gke-lab.ts';
export {
  startIamAuthenticatorLab,
  type AwsKeys,
  type IamAuthenticatorLab,
  type IamProfile,
} from '../vendor-labs/iam-authenticator-lab.ts';
export {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_LIFETIME_SEC,
  ID_TOKEN_LIFETIME_SEC,
  LAB_CLIENT_IDS,
  redactArgs,
  SHORT_ID_TOKEN_SEC,
  startKubeloginLab,
  type KubeloginExec,
  type KubeloginLab,
} from '../vendor-labs/kubelogin-lab.ts';
export { writeUsersKubeconfig } from '../vendor-labs/users-kubeconfig.ts';
export { kubectlOutcome, userInfoOf } from '../clients/kubectl-output.ts';
export { usernameFor } from '../authn/token-webhook.ts';
export type { TokenRequestRecord } from '../authn/oauth-token-endpoint.ts';
export {
  AZURE_KUBELOGIN_VERSION,
  startAzureKubeloginLab,
  type AzureKubeloginLab,
  type AzureKubeloginLabOptions,
} from '../vendor-labs/azure-kubelogin-lab.ts';
export { execCall, WHOAMI, type ExecCall, type ExecCallOptions, type ExecUnderTest } from './exec-call.ts';
export { OCI_CLI_VERSION, startOciLab, type OciIdentity, type OciLab, type OciRecord } from '../vendor-labs/oci-lab.ts';
export {
  startGcpLab,
  type GcpLab,
  type GcpLabOptions,
  type MetadataRecord,
  type RegistryLogin,
} from '../vendor-labs/gcp-lab.ts';
