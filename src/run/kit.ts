// The suite kit: everything a suite under suites/ needs, from one module.
// docs/writing-a-suite.md walks through a suite written with it. A suite
// reaches the environment only through SuiteRun/CaseContext (fields and
// capabilities of Environment), never through a provider's own modules.
export type { PreparedSuite, Stoppable, Suite, SuiteRun, SuiteSetup } from './suite.ts';
export { caseOf, runCases, type Case, type CaseContext, type RunCasesOptions } from './cases.ts';
export { agrees, judge, type Judgement, type Prediction } from './prediction.ts';
export { harnessFailed, notApplicable, notRun } from './results.ts';
export {
  answer,
  kubeletEvidence,
  prepareFleet,
  pullFailure,
  runPod,
  startLabRegistry,
  type Fleet,
  type FleetMember,
  type LabRegistry,
  type PodRun,
  type PullResult,
} from './lab.ts';
export {
  containerLog,
  createPod,
  deletePod,
  podEvents,
  podOutcome,
  waitForPodEvents,
  waitForPodOutcome,
  watchPod,
  type PodEvent,
  type PodOptions,
  type PodOutcome,
} from './pods.ts';
export { poll, sleep, sleepUntil, waitFor, systemClock, type Clock } from '../core/time.ts';
export { mapPool } from '../core/pool.ts';
export { credentialsSeen, type RecordingProxy, type RegistryRequest } from '../../registry/index.ts';
export { goDurationMs } from '../core/duration.ts';
export type { Capability, Environment, KubeletFiles } from '../cluster/provider.ts';
export type { Check, CheckResult, Evidence } from '../report/model.ts';
export { kubeletFilesOf, clusterCAOf, twoNodesOf } from './environment-fields.ts';
export { ensureKubelet } from './kubelet-builds.ts';
export { reachFromPlugins, routeRegistry, type MirrorOf, type RouteTarget } from './registry-routes.ts';
export { pluginDir } from './plugin-dir.ts';
export { assertKubeletLoadedConfig, expectedConfigHash, observeConfigHash } from './config-loaded.ts';
