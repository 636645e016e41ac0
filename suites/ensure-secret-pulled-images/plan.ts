// The suite's plan, as data: its two fake providers (as the fleet installs
// them and as the model knows them), the kubelet config of each policy, and
// how long it waits. The cells themselves are in plan-cells.ts.
import { answer, type FleetMember } from '../../src/run/kit.ts';
import type { PodProvider } from '../../src/model/ensure-secret-pulled.ts';
import { providerPatterns, type Layout, type Phase } from './plan-cells.ts';

export const MODEL =
  "KEP-2535 model (src/model/ensure-secret-pulled.ts: kubelet v1.37.1 image_manager.go + pullmanager, and the version table's row for the kubelet's minor)";
export const NODE_PROVIDER = 'credprov-espi-node';
export const SA_PROVIDER = 'credprov-espi-sa';

/** How long the suite waits after removing an image before looking at its record again. */
export const PRUNE_WAIT_MS = 5_000;
/** The first pulls go in pods of up to this many containers (one per cell). */
export const FIRST_POD_CONTAINERS = 12;
/** How long the first pulls, and then each policy's pods, may take before the matrix takes what it has. */
export const FIRST_PULLS_TIMEOUT_MS = 150_000;
export const PHASE_TIMEOUT_MS = 90_000;
/** After a batch: how long retries of failing pods may still be pulling, and the pauses before the node is read. */
export const PULLS_SETTLE_TIMEOUT_MS = 30_000;
export const AFTER_FIRST_PULLS_MS = 300;
export const BEFORE_METRICS_MS = 500;
/** More reads of the metrics after a phase while they count intents that are not on disk (phases.ts). */
export const QUIET_SCRAPE_TRIES = 5;
/** How long the controller-manager may take to fill the namespace (service accounts, kube-root-ca.crt). */
export const NAMESPACE_READY_TIMEOUT_MS = 30_000;
export const READ_INTERVAL_MS = 500;

/** The kubelet's KEP-2535 metrics (kubelet_imagemanager_*): the mustpull checks by result, the records and intents on disk. */
export const MUSTPULL = (result: string) => `kubelet_imagemanager_image_mustpull_checks_total{result="${result}"}`;
export const ONDISK_RECORDS = 'kubelet_imagemanager_ondisk_pulledrecords';
export const ONDISK_INTENTS = 'kubelet_imagemanager_ondisk_pullintents';

export interface Credentials {
  username: string;
  password: string;
}

/** The fake providers as installed: both answer the registry's right credentials; the second is KEP-4412 service-account mode. */
export function fleetMembers(layout: Layout, right: Credentials, audience: string): FleetMember[] {
  const nodeMode = providerPatterns(layout, 'np');
  const saMode = providerPatterns(layout, 'sa');
  return [
    { name: NODE_PROVIDER, matchImages: nodeMode, scenario: answer(nodeMode, { [layout.host]: right }) },
    {
      name: SA_PROVIDER,
      matchImages: saMode,
      tokenAttributes: {
        serviceAccountTokenAudience: audience,
        cacheType: 'ServiceAccount',
        requireServiceAccount: true,
      },
      scenario: { ...answer(saMode, { [layout.host]: right }), serviceAccount: { requireToken: true, audience } },
    },
  ];
}

/** The same two providers as the model sees them. */
export function podProviders(layout: Layout, right: Credentials): PodProvider[] {
  const auths = { [layout.host]: { ...right, works: true } };
  return [
    { name: NODE_PROVIDER, matchImages: providerPatterns(layout, 'np'), auths },
    {
      name: SA_PROVIDER,
      matchImages: providerPatterns(layout, 'sa'),
      auths,
      serviceAccountMode: true,
      requireServiceAccount: true,
    },
  ];
}

/** The kubelet config of a phase: the current config without the two KEP-2535 fields, then the phase's. */
export function phaseConfig(
  current: Record<string, unknown>,
  phase: Phase,
  allowlist: string[],
): Record<string, unknown> {
  const {
    imagePullCredentialsVerificationPolicy: _policy,
    preloadedImagesVerificationAllowlist: _allowlist,
    ...rest
  } = current;
  return {
    ...rest,
    ...(phase.set ? { imagePullCredentialsVerificationPolicy: phase.policy } : {}),
    ...(phase.allowlist ? { preloadedImagesVerificationAllowlist: allowlist } : {}),
  };
}
