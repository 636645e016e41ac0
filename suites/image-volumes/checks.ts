// The image-volumes suite's checks: an image volume (`volumes[].image`,
// KEP-4639) carries registry credentials as a container image does.
import type { Check } from '../../src/run/kit.ts';

const API_DOC =
  'ImageVolumeSource API doc ("pull secrets are assembled the same way as for the container image"); kuberuntime_manager.go getImageVolumes (v1.37.1:2034-2073)';

export const PROVIDER_EXEC: Check = {
  id: 'IV-PROVIDER-EXEC',
  title: "A credential provider matching an image volume's image is exec'd for it, and the pod runs with the volume",
  level: 'MUST',
  source: API_DOC,
};

export const SA_TOKEN: Check = {
  id: 'IV-SA-TOKEN',
  title:
    "A KEP-4412 provider exec'd for an image volume gets a token for the pod's own ServiceAccount, bound to the pod",
  level: 'MUST',
  source: `KEP-4412: the token is for the pod's service account; ${API_DOC}`,
};

export const RECORD: Check = {
  id: 'IV-RECORD',
  title: "The kubelet writes a KEP-2535 pulled record for the volume's image that names the pod's ServiceAccount",
  level: 'MUST',
  source:
    'KEP-2535: a pulled record per image ID (image_pull_manager.go RecordImagePulled); the same EnsureImageExists call',
};

export const SECOND_POD: Check = {
  id: 'IV-SECOND-POD-VERIFIED',
  title:
    "A second pod's image volume is verified as a container image is: another ServiceAccount's Never pod is refused, its IfNotPresent pod must pull, the recorded ServiceAccount's Never pod runs",
  level: 'MUST',
  source: 'KEP-2535 MustAttemptImagePull (image_pull_manager.go), reached for image volumes through getImageVolumes',
};

export const EVENTS_ON_POD: Check = {
  id: 'IV-EVENTS-ON-POD',
  title:
    'A failed image volume pull should show where kubectl describe looks: its pull events on the pod, and an Error event on each container mounting the volume',
  level: 'SHOULD',
  source:
    'kuberuntime_manager.go getImageVolumes (EnsureImageExists with ref.GetReference(pod): no fieldPath) and toKubeContainerImageVolumes (v1.37.1:2016-2020: Failed "Error: …" per container mount)',
};

export const IMAGE_VOLUME_CHECKS = [PROVIDER_EXEC, SA_TOKEN, RECORD, SECOND_POD, EVENTS_ON_POD];
