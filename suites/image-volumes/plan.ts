// The image-volumes suite's data: one SA-mode fake provider matching the lab
// registry with a required annotation, two ServiceAccounts, a preloaded base
// image for the pods' container, a volume image on the lab, and the four pods
// of the story in order. No I/O.
import type { TokenAttributes } from '../../src/api/credentialprovider/types.ts';

export const PROVIDER = 'credprov-iv-sa';
export const ROLE_KEY = 'credprov.test/role';
export const VOLUME_REPOSITORY = 'iv/data';
export const VOLUME_TAG = 'v1';
/** The pods' container image: preloaded with ctr (no registry), run with Never. */
export const BASE_IMAGE = 'credprov.test/iv/base:v1';
export const READER = { name: 'reader', annotations: { [ROLE_KEY]: 'reader' } };
export const NOBODY = { name: 'nobody', annotations: {} as Record<string, string> };
export const POD_TIMEOUT_MS = 90_000;

export function tokenAttributes(audience: string): TokenAttributes {
  return {
    serviceAccountTokenAudience: audience,
    cacheType: 'ServiceAccount',
    requireServiceAccount: true,
    requiredServiceAccountAnnotationKeys: [ROLE_KEY],
  };
}

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/** A pod of the story: its ServiceAccount and the volume's pullPolicy (undefined: defaulted). */
export interface StoryPod {
  name: string;
  serviceAccount: typeof READER | typeof NOBODY;
  volumePolicy?: PullPolicy;
}

/** In order: the first pull, then the second pods that KEP-2535 verifies. */
export const STORY: StoryPod[] = [
  { name: 'first-reader', serviceAccount: READER },
  { name: 'nobody-never', serviceAccount: NOBODY, volumePolicy: 'Never' },
  { name: 'nobody-ifnotpresent', serviceAccount: NOBODY, volumePolicy: 'IfNotPresent' },
  { name: 'second-reader-never', serviceAccount: READER, volumePolicy: 'Never' },
];

/** The pod as the API server takes it: one container of the base image mounting the image volume. */
export function podManifest(namespace: string, nodeName: string, p: StoryPod, volumeRef: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: p.name, namespace, labels: { 'app.kubernetes.io/managed-by': 'credprov' } },
    spec: {
      nodeName,
      serviceAccountName: p.serviceAccount.name,
      automountServiceAccountToken: false,
      restartPolicy: 'Never',
      dnsPolicy: 'Default',
      terminationGracePeriodSeconds: 0,
      containers: [
        {
          name: 'main',
          image: BASE_IMAGE,
          imagePullPolicy: 'Never',
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
      volumes: [
        { name: 'data', image: { reference: volumeRef, ...(p.volumePolicy ? { pullPolicy: p.volumePolicy } : {}) } },
      ],
    },
  };
}
