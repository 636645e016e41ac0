// Each pod of the story predicted from credprov's models, the state threaded:
// the service-account token model (cache keyed by the SA's UID and passed
// annotations: execs, the annotations sent), tokenAfterRecreate (the token's
// UID), and the ensure-secret-pulled model (KEP-2535 records by UID). Pure:
// the UIDs the API server gave come in as arguments.
import { ensureImageExists, type NodeImage, type PodProvider } from '../../src/model/ensure-secret-pulled.ts';
import { tokenAfterRecreate } from '../../src/model/service-account-recreate.ts';
import { ServiceAccountTokenModel, type ServiceAccountState } from '../../src/model/service-account-token.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { CACHE_DURATION_S, PROVIDER, ROLE_KEY, ROLES, SA_NAME, STEPS, tokenAttributes, type Step } from './plan.ts';

export interface PodSeen {
  /** Plugin execs for the pod's image while it started. */
  execs: number;
  /** The role annotation the plugin was sent (when exec'd). */
  role?: string;
  outcome: 'Running' | 'ErrImagePull' | 'ErrImageNeverPull';
  /** A pull was attempted (a Pulling event). */
  pulled: boolean;
}

export interface StepPrediction {
  step: Step;
  seen: PodSeen;
  because: string;
  /** After the step: the SA UIDs the record names, sorted. */
  recordUids: string[];
}

export const MODEL =
  'service-account-token.ts (cache) + service-account-recreate.ts + ensure-secret-pulled.ts (records)';

export function predictStory(i: {
  kubeletVersion: string;
  namespace: string;
  host: string;
  image: string;
  audience: string;
  /** The SA's UID before and after the recreate. */
  uids: [string, string];
}): { steps: StepPrediction[]; token: ReturnType<typeof tokenAfterRecreate> } {
  const row = behaviourFor(i.kubeletVersion);
  const model = new ServiceAccountTokenModel({
    provider: { name: PROVIDER, defaultCacheDurationMs: 0, tokenAttributes: tokenAttributes(i.audience) },
    behaviour: row,
    grants: [{ audience: i.audience }],
  });
  let sa: ServiceAccountState = { name: SA_NAME, uid: i.uids[0], annotations: { [ROLE_KEY]: ROLES.first } };
  let works = true;
  let node: NodeImage = { present: false, imageRef: 'sha256:app' };
  const steps = STEPS.map((step, n) => {
    if (step.before === 'recreate') sa = { ...sa, uid: i.uids[1] };
    if (step.before === 'reannotate') {
      sa = { ...sa, annotations: { [ROLE_KEY]: ROLES.after } };
      works = false;
    }
    const pod = { namespace: i.namespace, name: step.pod, uid: `pod-${n}`, serviceAccount: sa };
    const answer = {
      cacheKeyType: 'Registry' as const,
      cacheDurationMs: CACHE_DURATION_S * 1000,
      password: 'static' as const,
      registryAccepts: works,
    };
    const provider: PodProvider = {
      name: PROVIDER,
      matchImages: [i.host],
      auths: { [i.host]: { username: 'lab', password: works ? 'right' : 'wrong', works } },
      serviceAccountMode: true,
      requireServiceAccount: true,
    };
    const e = ensureImageExists({
      kubelet: row,
      image: i.image,
      pullPolicy: step.policy,
      node,
      pod: {
        namespace: i.namespace,
        serviceAccount: { name: sa.name, uid: sa.uid },
        secrets: [],
        providers: [provider],
      },
    });
    // The kubelet execs (or hits the cache) only when KEP-2535 looks the pod's credentials up.
    const token = e.lookedUp ? model.pull(pod, i.image, answer, n) : undefined;
    node = e.node;
    const repository = i.image.replace(/:[^:/]+$/, '');
    const recordUids = (node.record?.credentialMapping[repository]?.kubernetesServiceAccounts ?? [])
      .map((s) => s.uid)
      .sort();
    return {
      step,
      seen: {
        execs: token?.invoked ? 1 : 0,
        ...(token?.invoked ? { role: token.annotations?.[ROLE_KEY] } : {}),
        outcome: e.outcome,
        pulled: e.pull,
      },
      because: `${step.pod}: ${token ? `${token.because}; ` : 'no lookup; '}${e.because}`,
      recordUids,
    };
  });
  return { steps, token: tokenAfterRecreate(row, false) };
}
