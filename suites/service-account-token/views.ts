// The shapes a check compares (predict.ts predicts them, the cases observe
// them), how the suite reads the fake plugins' records into them, and how
// they read in a check's message.
import { isDeepStrictEqual } from 'node:util';
import type { FakeInvocation, NodeTokenView, PullOutcome } from '../../src/run/kit.ts';

export type { NodeTokenView, PullOutcome };

/** What the plugin saw of a pod's pull, and how the pull ended. */
export interface PluginView {
  invoked: boolean;
  tokenPresent: boolean;
  annotations?: Record<string, string> | undefined;
  pull: PullOutcome;
}

export interface CacheView {
  execs: number;
  pull: PullOutcome;
}

export interface AudienceView {
  tokenDenied: boolean;
  invoked: boolean;
  pull: PullOutcome;
}

export interface TokenAsPasswordView {
  invoked: boolean;
  responseRefused: boolean;
  pull: PullOutcome;
}

export interface ExchangeView {
  invoked: boolean;
  tokenValidated: boolean;
  pull: PullOutcome;
}

export interface TokenVerdict {
  signature: 'valid' | 'invalid';
  tokenReview: 'authenticated' | 'refused';
}

export interface RequireServiceAccountView {
  apiPod: PluginView;
  /** Absent where the static pod is not run (no kubeletFiles). */
  staticPod?: PluginView;
}

/** The invocations of one pod (the token names the pod it is bound to). */
export const podInvocations = (invocations: FakeInvocation[], pod: string): FakeInvocation[] =>
  invocations.filter((i) => i.tokenPod === pod);

/** What the plugin saw, from its invocations (without the pull). */
export const seenByPlugin = (invocations: FakeInvocation[]): Omit<PluginView, 'pull'> => ({
  invoked: invocations.length > 0,
  tokenPresent: invocations.some((i) => i.tokenPresent),
  annotations: invocations[0]?.annotations,
});

export function showPluginView(v: PluginView): string {
  const annotations =
    v.annotations && Object.keys(v.annotations).length ? ` and annotations ${JSON.stringify(v.annotations)}` : '';
  return `${v.invoked ? `invoked ${v.tokenPresent ? 'with' : 'without'} a token${annotations}` : 'not invoked'}, pull ${v.pull}`;
}

export const showCache = (v: Record<string, CacheView>): string =>
  Object.entries(v)
    .map(([pod, x]) => `${pod}: ${x.execs} exec${x.execs === 1 ? '' : 's'}, pull ${x.pull}`)
    .join('; ');

export const showAudience = (v: AudienceView): string =>
  `token request ${v.tokenDenied ? 'denied' : 'not denied'}, plugin ${v.invoked ? 'invoked' : 'not invoked'}, pull ${v.pull}`;

export const showTokenAsPassword = (v: Record<string, TokenAsPasswordView>): string =>
  Object.entries(v)
    .map(
      ([cacheType, x]) =>
        `${cacheType}: ${x.invoked ? 'invoked' : 'not invoked'}, response ${x.responseRefused ? 'refused' : 'accepted'}, pull ${x.pull}`,
    )
    .join('; ');

export const showExchange = (v: Record<string, ExchangeView>): string =>
  Object.entries(v)
    .map(
      ([pod, x]) =>
        `${pod}: ${x.invoked ? 'invoked' : 'not invoked'}, ` +
        `token ${x.tokenValidated ? 'validated offline + TokenReview' : 'not validated'}, pull ${x.pull}`,
    )
    .join('; ');

export const showRevocation = (v: Record<string, TokenVerdict>): string =>
  Object.entries(v)
    .map(([step, x]) => `${step}: signature ${x.signature}, TokenReview ${x.tokenReview}`)
    .join('; ');

/** Agree on status, stage and binding; the observed message must carry the predicted reason. */
export const nodeTokenAgrees = (p: NodeTokenView, o: NodeTokenView): boolean =>
  p.status === o.status &&
  p.refusedBy === o.refusedBy &&
  p.boundTo === o.boundTo &&
  (p.says === undefined || (o.says ?? '').includes(p.says));

export const showNodeToken = (v: NodeTokenView): string =>
  v.refusedBy
    ? `HTTP ${v.status}, refused by ${v.refusedBy}${v.says ? ` ("${v.says}")` : ''}`
    : `HTTP ${v.status}, token issued${v.boundTo ? ` bound to ${v.boundTo}` : ''}`;

/** SA-TOKEN-OTHER-NODE: the real pull on node A, and the three token requests made with the kubelets' own certificates. */
export interface OtherNodeView {
  pluginOnNodeA: PluginView;
  nodeA: NodeTokenView;
  nodeB: NodeTokenView;
  /** Node B again, once a pod of the same SA is bound to it. */
  nodeBWithSibling: NodeTokenView;
}

export const otherNodeAgrees = (p: OtherNodeView, o: OtherNodeView): boolean =>
  isDeepStrictEqual(p.pluginOnNodeA, o.pluginOnNodeA) &&
  nodeTokenAgrees(p.nodeA, o.nodeA) &&
  nodeTokenAgrees(p.nodeB, o.nodeB) &&
  nodeTokenAgrees(p.nodeBWithSibling, o.nodeBWithSibling);

export const showOtherNode = (v: OtherNodeView): string =>
  `plugin on node A: ${showPluginView(v.pluginOnNodeA)}; node A asks: ${showNodeToken(v.nodeA)}; ` +
  `node B asks: ${showNodeToken(v.nodeB)}; node B with a pod of the SA asks: ${showNodeToken(v.nodeBWithSibling)}`;
