// The ensure-secret-pulled-images suite's checks: KEP-2535
// (KubeletEnsureSecretPulledImages, beta and on by default from 1.35) on the
// real kubelet. One matrix check per imagePullCredentialsVerificationPolicy
// (cells: imagePullPolicy × the second pod's credential source × how the image
// got onto the node), then the records, metrics, restart and pruning checks.
import type { Check } from '../../src/run/kit.ts';
import type { VerificationPolicy } from '../../src/model/ensure-secret-pulled.ts';

const KEP = 'KEP-2535 (ensure secret pulled images)';
const SRC =
  'k8s.io/kubernetes v1.37.1 pkg/kubelet/images (image_manager.go EnsureImageExists, pullmanager/image_pull_manager.go MustAttemptImagePull, image_pull_policies.go)';

const matrix = (policy: VerificationPolicy, id: string, what: string): Check => ({
  id: `ESPI-MATRIX-${id}`,
  title: `imagePullCredentialsVerificationPolicy ${policy}${what}: every cell (IfNotPresent/Never × no secret, the same secret, another secret with the same credentials, a wrong secret, a provider, a service-account-mode provider with the same or another SA × pulled by the kubelet or preloaded) runs, fails its pull or is refused (ErrImageNeverPull) as the model predicts`,
  level: 'MUST',
  source: `${KEP}: "${policy}" ; ${SRC}`,
});

export const MATRIX: Record<VerificationPolicy, Check> = {
  NeverVerify: matrix('NeverVerify', 'NEVERVERIFY', ''),
  NeverVerifyPreloadedImages: matrix(
    'NeverVerifyPreloadedImages',
    'NEVERVERIFYPRELOADED',
    ' (the default: the field left unset)',
  ),
  NeverVerifyAllowlistedImages: matrix(
    'NeverVerifyAllowlistedImages',
    'ALLOWLISTED',
    ' with an allowlist (each cell allowlisted or not)',
  ),
  AlwaysVerify: matrix('AlwaysVerify', 'ALWAYSVERIFY', ''),
};

export const PLUGIN_PRESENT: Check = {
  id: 'ESPI-PLUGIN-INVOKED-FOR-PRESENT-IMAGE',
  title:
    "Credential providers are exec'd for an image already on the node exactly when the kubelet looks up the pod's credentials: to match a record naming secrets or service accounts, or before a re-pull; never when the policy or a nodePodsAccessible record allows the image, nor for a record-less image with Never",
  level: 'SHOULD',
  source: `reference §5.3 (UNCONFIRMED: "the pod's credentials are resolved lazily, which may invoke plugins even for images already present"); ${SRC} (getPodCredentials, sync.OnceValues)`,
};

export const RECORDS_FORMAT: Check = {
  id: 'ESPI-RECORDS-FORMAT',
  title:
    "Pull records and intents on disk: <kubelet root>/image_manager/{pulled,pulling}/sha256-<sha256(imageRef|image)>, JSON ImagePulledRecord/ImagePullIntent in the kubelet's config API version, directories 0700, files 0600, no leftover .tmp, no intent left after the pulls",
  level: 'SHOULD',
  source: `${KEP}; k8s.io/kubernetes v1.37.1 pkg/kubelet/images/pullmanager/fs_pullrecords.go; reference §5.5`,
};

export const RECORDS_CONTENT: Check = {
  id: 'ESPI-RECORDS-CONTENT',
  title:
    "Each cell's pulled record holds the credential mapping the model predicts for the kubelet's minor: the first pull's secret or, from 1.34, the service account of a KEP-4412 provider's pull (kubernetesServiceAccounts, k/k #132771), a matching secret's coordinates added, a re-pull's credentials merged (a non-SA provider's as nodePodsAccessible)",
  level: 'SHOULD',
  source: `${KEP}; k/k PR #132771 (service-account pull records, v1.34; version table serviceAccountPullRecords); ${SRC} (writePulledRecordIfChanged, pulledRecordMergeNewCreds, trackedToImagePullCreds)`,
};

// ---- field bugs (predict-hub.ts): images with familiar Docker Hub names, served by the lab as docker.io ----

export const HUB_CROSS_NAMESPACE: Check = {
  id: 'ESPI-CROSS-NAMESPACE-NO-REUSE',
  title:
    "Under the default policy, a pod in another namespace without credentials cannot use an image that a pod pulled with the secret its namespace's default ServiceAccount lists in imagePullSecrets: with IfNotPresent it must pull, and the pull fails",
  level: 'MUST',
  source: `${KEP}; k/k issue #137024 (open: "image pull credential verification doesn't work", reported on CRI-O); image_manager.go EnsureImageExists, image_pull_manager.go MustAttemptImagePull`,
};

export const RECORD_REF: Check = {
  id: 'ESPI-RECORD-KEYED-BY-LOOKUP-REF',
  title:
    "The pulled record is written under the imageRef the kubelet later looks it up by (containerd's image ID, the config digest, for the version table's pulledRecordLookup), so a second pod with the same secret is allowed without a pull",
  level: 'MUST',
  source:
    'k/k PR #135369 (GetImageRef → RepoDigests[0]), #136549, #136498, #136558 (taken back); kuberuntime_image.go GetImageRef and PullImage of v1.35.4, v1.36.5, v1.37.1',
};

export const RECORD_IMAGE_NAMES: Check = {
  id: 'ESPI-RECORD-IMAGE-NAMES',
  title:
    "A pulled record keys its credentialMapping by the image name of the kubelet's minor (normalised before k/k #137629, as written with the tag cut from 1.36), so the same image named in full (docker.io/library/…) with Never is found by the same secret on 1.35 only",
  level: 'SHOULD',
  source: `${KEP}; k/k PR #137629 (image_pull_manager.go trimImageTagDigest: parsers.ParseImageName in v1.35.4, the tag/digest cut in v1.36.5 and v1.37.1); version table kep2535ImageNames`,
};

export const ALLOWLIST_FAMILIAR: Check = {
  id: 'ESPI-ALLOWLIST-FAMILIAR-NAMES',
  title:
    "preloadedImagesVerificationAllowlist with Docker Hub images as the kubelet's minor has it: 1.35 refuses a familiar entry (`alpine`) at config validation and compares the pod's image as written, tag included; from 1.36 an entry matches the pod's image with its tag cut, not normalised (familiar entry ↔ familiar image)",
  level: 'MUST',
  source: `${KEP}: "images specified by this list will not require credential reverification"; k/k PR #137629 (merged 2026-03, in 1.36; not in v1.35.4–v1.35.6); image_pull_policies.go imageMatches, getAllowlistImagePattern; version table kep2535ImageNames`,
};

export const METRICS: Check = {
  id: 'ESPI-METRICS',
  title:
    'kubelet_imagemanager_image_mustpull_checks_total{result} moves per policy as the cells predict (retries of failing pods only add mustAuthenticate), and the ondisk_pulledrecords / ondisk_pullintents gauges match the files',
  level: 'SHOULD',
  source: 'k8s.io/kubernetes v1.37.1 pkg/kubelet/images/pullmanager/metrics.go (k/k PR #132812); reference §6',
};

export const RESTART: Check = {
  id: 'ESPI-RECORDS-SURVIVE-RESTART',
  title:
    "A kubelet restart keeps every pulled record byte for byte (none rewritten, none pruned); the ondisk gauges read 0 until the next write; the next policy's cells are decided from the records written before the restart",
  level: 'MUST',
  source: `${KEP}; fs_pullrecords.go recordsVersionMigration, image_pull_manager.go initialize; reference §5.5`,
};

export const PRUNE: Check = {
  id: 'ESPI-RECORDS-PRUNE-ON-REMOVAL',
  title:
    'An image removed behind the kubelet\'s back (ctr images rm) keeps its pulled record after a wait and after a kubelet restart (pruning is an image-GC hook only); re-imported, it is still "pulled by the kubelet"',
  level: 'SHOULD',
  source:
    'reference §5.5 ("Records of removed images are pruned (PruneUnknownRecords)"); kuberuntime_manager.go (imageGCHooks), images/image_gc_manager.go GarbageCollect/DeleteUnusedImages',
};

export const ESPI_CHECKS: Check[] = [
  ...Object.values(MATRIX),
  PLUGIN_PRESENT,
  RECORDS_FORMAT,
  RECORDS_CONTENT,
  METRICS,
  RESTART,
  PRUNE,
  HUB_CROSS_NAMESPACE,
  RECORD_REF,
  RECORD_IMAGE_NAMES,
  ALLOWLIST_FAMILIAR,
];
