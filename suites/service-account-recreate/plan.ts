// The service-account-recreate suite's data: one SA-mode fake provider
// (Registry/600 s, a passed role annotation), one ServiceAccount, six pods in
// order around a delete-and-recreate and a re-annotation. No I/O.
import type { TokenAttributes } from '../../src/api/credentialprovider/types.ts';

export const PROVIDER = 'credprov-sar';
export const ROLE_KEY = 'credprov.test/role';
export const SA_NAME = 'puller';
export const REPOSITORY = 'sar/app';
export const TAG = 'v1';
export const CACHE_DURATION_S = 600;
export const POD_TIMEOUT_MS = 90_000;

export function tokenAttributes(audience: string): TokenAttributes {
  return {
    serviceAccountTokenAudience: audience,
    cacheType: 'ServiceAccount',
    requireServiceAccount: true,
    optionalServiceAccountAnnotationKeys: [ROLE_KEY],
  };
}

/** What happens to the ServiceAccount before a pod, and the pod. */
export interface Step {
  pod: string;
  policy: 'Always' | 'IfNotPresent' | 'Never';
  /** Before this pod: the SA deleted and recreated, or its role changed (and the fake then answers a refused password). */
  before?: 'recreate' | 'reannotate';
}

export const ROLES = { first: 'reader', after: 'admin' };

export const STEPS: Step[] = [
  { pod: 'p1', policy: 'IfNotPresent' },
  { pod: 'p2', policy: 'IfNotPresent' },
  { pod: 'p3', policy: 'Never', before: 'recreate' },
  { pod: 'p4', policy: 'IfNotPresent' },
  { pod: 'p5', policy: 'Never', before: 'reannotate' },
  { pod: 'p6', policy: 'Always' },
];

export function podManifest(namespace: string, nodeName: string, s: Step, image: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: s.pod, namespace, labels: { 'app.kubernetes.io/managed-by': 'credprov' } },
    spec: {
      nodeName,
      serviceAccountName: SA_NAME,
      automountServiceAccountToken: false,
      restartPolicy: 'Never',
      dnsPolicy: 'Default',
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'main', image, imagePullPolicy: s.policy }],
    },
  };
}

export function serviceAccountManifest(namespace: string, role: string) {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: SA_NAME, namespace, annotations: { [ROLE_KEY]: role } },
  };
}
