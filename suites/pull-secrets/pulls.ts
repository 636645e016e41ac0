// A pod's pull as the cases observe it: the first outcome, a recovery after a
// secret appeared, or the result of the kubelet's next retry. A pull the
// registry refused is `failure`; any other failure is `error: <message>`, so a
// routing or image error is never mistaken for the refusal a case predicts.
import {
  podEvents,
  podOutcome,
  TimeoutError,
  waitForPodEvents,
  watchPod,
  pullFailure,
  waitForPodOutcome,
  type Environment,
  type PodEvent,
  type PodOutcome,
} from '../../src/run/kit.ts';
import { FIRST_OUTCOME_MS, RECOVERY_MS } from './plan.ts';
import type { Pull } from './predict.ts';

export interface Attempted {
  observed: Pull;
  outcome?: PodOutcome;
  events: PodEvent[];
}

function observedOf(outcome: PodOutcome, events: PodEvent[]): Pull {
  if (outcome.kind === 'completed') return 'success';
  const why = pullFailure(events, outcome);
  return why === 'unauthorized' ? 'failure' : `error: ${why}`;
}

/** The pod's first pull result. */
export async function firstOutcome(env: Environment, pod: string, namespace: string): Promise<Attempted> {
  const outcome = await waitForPodOutcome(env, pod, FIRST_OUTCOME_MS, namespace);
  const events = await podEvents(env, pod, namespace);
  return { observed: observedOf(outcome, events), outcome, events };
}

/** Waits for the container to run (a later pull worked), tolerating pull failures until the deadline. */
export async function recovered(env: Environment, pod: string, namespace: string): Promise<Attempted> {
  let last: PodOutcome | undefined;
  await watchPod(env, pod, namespace, RECOVERY_MS, (p) => {
    last = podOutcome(p) ?? last;
    return last?.kind === 'completed' ? last : undefined;
  }).catch(() => undefined);
  const events = await podEvents(env, pod, namespace);
  if (!last) return { observed: 'error: no pull outcome', events };
  return { observed: observedOf(last, events), outcome: last, events };
}

const FAILED_PULL = /^Failed to pull image/;

/** Waits until the kubelet pulled again (more Pulling events than `pullsBefore`) and that pull ended, or the image was pulled. */
export async function afterRetry(
  env: Environment,
  pod: string,
  namespace: string,
  pullsBefore: number,
): Promise<Attempted> {
  const failedBefore = countEvents(await podEvents(env, pod, namespace), 'Failed', FAILED_PULL);
  const retried = (events: PodEvent[]) =>
    countEvents(events, 'Pulling') > pullsBefore && countEvents(events, 'Failed', FAILED_PULL) > failedBefore;
  const pulled = (events: PodEvent[]) => events.some((e) => e.reason === 'Pulled');
  const enough = (events: PodEvent[]) => retried(events) || pulled(events);
  const events = await waitForPodEvents(env, pod, namespace, RECOVERY_MS, enough, 'to show a retried pull').catch(
    (err: unknown) => {
      if (err instanceof TimeoutError) return undefined;
      throw err;
    },
  );
  if (!events)
    return {
      observed: 'error: the kubelet did not retry the pull in time',
      events: await podEvents(env, pod, namespace),
    };
  const outcome = await waitForPodOutcome(env, pod, 10_000, namespace);
  return { observed: observedOf(outcome, events), outcome, events };
}

/** Events of `reason` (and a message matching `message`), a repeated event counted as often as it happened. */
export function countEvents(events: PodEvent[], reason: string, message?: RegExp): number {
  return events
    .filter((e) => e.reason === reason && (!message || message.test(e.message)))
    .reduce((n, e) => n + (e.count ?? 1), 0);
}
