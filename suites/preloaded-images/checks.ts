// The preloaded-images suite's checks: KEP-2535 where two names share one
// image ID (k/k #138175): a preloaded name X, and a name Y of the same image
// pulled with a secret.
import type { Check } from '../../src/run/kit.ts';

export const SHARED_RECORD: Check = {
  id: 'PRE-SHARED-DIGEST-RECORD',
  title:
    "Pulling Y, which shares a preloaded X's image ID, with a secret writes one pulled record for that image ID whose credentialMapping names Y only",
  level: 'MUST',
  source:
    'KEP-2535: one ImagePulledRecord per image ID, credentials mapped per image name (pkg/kubelet/images/pullmanager fs_pullrecords.go, image_pull_manager.go RecordImagePulled)',
};

export const STAYS_PRELOADED: Check = {
  id: 'PRE-SHARED-DIGEST-PRELOADED',
  title:
    'A preloaded image should stay preloaded (a Never pod of X still runs) after another name of its image ID is pulled with a secret',
  level: 'SHOULD',
  source:
    'KEP-2535 NeverVerifyPreloadedImages ("images not pulled by the kubelet are not verified"); k/k #138175 (open; fix #139156, ImagePreloadedRecord, enhancements#6267); credprov finding 22',
};

export const REPAIR: Check = {
  id: 'PRE-SHARED-DIGEST-REPAIR',
  title:
    "An IfNotPresent pod of X with a secret pulls X again and adds X to the image ID's record; a Never pod of X with that secret then runs",
  level: 'MUST',
  source: 'KEP-2535 MustAttemptImagePull; image_pull_manager.go pulledRecordMergeNewCreds',
};

export const PRELOADED_CHECKS = [SHARED_RECORD, STAYS_PRELOADED, REPAIR];
