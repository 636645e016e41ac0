// The preloaded-images suite's data: one image under two names on the lab
// registry (X and Y; X also imported into containerd behind the kubelet's
// back), one pull secret for the lab, and the five pods of the story in
// order. No I/O.
export const TAG = 'v1';
export const SECRET = 'lab-pull';
export const POD_TIMEOUT_MS = 90_000;

export type Name = 'x' | 'y';

export interface StoryStep {
  pod: string;
  image: Name;
  pullPolicy: 'IfNotPresent' | 'Never';
  withSecret: boolean;
}

/** In order: X runs preloaded; Y pulled with the secret; X Never again (k/k #138175); X pulled with the secret; X Never with it. */
export const STORY: StoryStep[] = [
  { pod: 'x-never-first', image: 'x', pullPolicy: 'Never', withSecret: false },
  { pod: 'y-with-secret', image: 'y', pullPolicy: 'IfNotPresent', withSecret: true },
  { pod: 'x-never-after-y', image: 'x', pullPolicy: 'Never', withSecret: false },
  { pod: 'x-with-secret', image: 'x', pullPolicy: 'IfNotPresent', withSecret: true },
  { pod: 'x-never-with-secret', image: 'x', pullPolicy: 'Never', withSecret: true },
];

/** Which steps each check judges, and after which step it reads the record (index into STORY). */
export const JUDGED = {
  record: { steps: [0, 1], recordAfter: 1 },
  preloaded: { steps: [2] },
  repair: { steps: [3, 4], recordAfter: 4 },
} as const;

/** The images' repositories under a run's own root on the lab host. */
export const repositoryOf = (host: string, root: string, n: Name) => `${host}/${root}/${n}`;
export const referenceOf = (host: string, root: string, n: Name) => `${repositoryOf(host, root, n)}:${TAG}`;

/** The pod as the API server takes it: one container of the step's image, the secret when the step has it. */
export function podManifest(namespace: string, nodeName: string, s: StoryStep, image: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: s.pod, namespace, labels: { 'app.kubernetes.io/managed-by': 'credprov' } },
    spec: {
      nodeName,
      automountServiceAccountToken: false,
      restartPolicy: 'Never',
      dnsPolicy: 'Default',
      terminationGracePeriodSeconds: 0,
      ...(s.withSecret ? { imagePullSecrets: [{ name: SECRET }] } : {}),
      containers: [{ name: 'main', image, imagePullPolicy: s.pullPolicy }],
    },
  };
}
