// A pod's pull as a case observes it over time: its first outcome, a recovery
// after its credentials appeared (the kubelet reads a pod's secrets again on
// each retry), or the result of the kubelet's next retry. A pull the registry
// refused is `failure`; any other failure is `error: <message>`, so a routing
// or image error is never mistaken for the refusal a case predicts.
import type { Environment } from '../cluster/provider.ts';
import { TimeoutError } from '../core/errors.ts';
import { pullFailure } from './lab.ts';
import {
  podEvents,
  podOutcome,
  waitForPodEvents,
  waitForPodOutcome,
  watchPod,
  type PodEvent,
  type PodOutcome,
} from './pods.ts';
import type { PullOutcome } from './sa-pods.ts';

export interface ObservedPull {
  observed: PullOutcome;
  outcome?: PodOutcome;
  events: PodEvent[];
}

/** A pod's outcome as a pull: `success`, `failure` (the registry refused it), or `error: <the kubelet's message>`. */
export function pullOutcomeOf(outcome: PodOutcome, events: PodEvent[]): PullOutcome {
  if (outcome.kind === 'completed') return 'success';
  const why = pullFailure(events, outcome);
  return why === 'unauthorized' ? 'failure' : `error: ${why}`;
}

/** The pod's first pull result, within `timeoutMs`. */
export async function firstPull(
  env: Environment,
  pod: string,
  namespace: string,
  timeoutMs: number,
): Promise<ObservedPull> {
  const outcome = await waitForPodOutcome(env, pod, timeoutMs, namespace);
  const events = await podEvents(env, pod, namespace);
  return { observed: pullOutcomeOf(outcome, events), outcome, events };
}

/** Waits for the container to run (a later pull worked), tolerating pull failures until `timeoutMs`. */
export async function pullRecovered(
  env: Environment,
  pod: string,
  namespace: string,
  timeoutMs: number,
): Promise<ObservedPull> {
  let last: PodOutcome | undefined;
  await watchPod(env, pod, namespace, timeoutMs, (p) => {
    last = podOutcome(p) ?? last;
    return last?.kind === 'completed' ? last : undefined;
  }).catch(() => undefined);
  const events = await podEvents(env, pod, namespace);
  if (!last) return { observed: 'error: no pull outcome', events };
  return { observed: pullOutcomeOf(last, events), outcome: last, events };
}

const FAILED_PULL = /^Failed to pull image/;

/** Waits until the kubelet pulled again (more Pulling events than `pullsBefore`) and that pull ended, or the image was pulled. */
export async function pullAfterRetry(
  env: Environment,
  pod: string,
  namespace: string,
  pullsBefore: number,
  timeoutMs: number,
): Promise<ObservedPull> {
  const failedBefore = countEvents(await podEvents(env, pod, namespace), 'Failed', FAILED_PULL);
  const retried = (events: PodEvent[]) =>
    countEvents(events, 'Pulling') > pullsBefore && countEvents(events, 'Failed', FAILED_PULL) > failedBefore;
  const pulled = (events: PodEvent[]) => events.some((e) => e.reason === 'Pulled');
  const enough = (events: PodEvent[]) => retried(events) || pulled(events);
  const events = await waitForPodEvents(env, pod, namespace, timeoutMs, enough, 'to show a retried pull').catch(
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
  return { observed: pullOutcomeOf(outcome, events), outcome, events };
}

/** Events of `reason` (and a message matching `message`), a repeated event counted as often as it happened. */
export function countEvents(events: PodEvent[], reason: string, message?: RegExp): number {
  return events
    .filter((e) => e.reason === reason && (!message || message.test(e.message)))
    .reduce((n, e) => n + (e.count ?? 1), 0);
}
