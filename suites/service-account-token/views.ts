// How the suite reads what the fake plugins recorded, in the shapes
// predict.ts predicts, and how those shapes read in a check's message.
import type { FakeInvocation } from '../../src/plugin/fake-provider.ts';
import type { AudienceView, CacheView, ExchangeView, PluginView, TokenAsPasswordView, TokenVerdict } from './predict.ts';

/** The invocations of one pod (the token names the pod it is bound to). */
export const podInvocations = (invocations: FakeInvocation[], pod: string): FakeInvocation[] => invocations.filter((i) => i.tokenPod === pod);

/** What the plugin saw, from its invocations (without the pull). */
export const seenByPlugin = (invocations: FakeInvocation[]): Omit<PluginView, 'pull'> => ({
  invoked: invocations.length > 0,
  tokenPresent: invocations.some((i) => i.tokenPresent),
  annotations: invocations[0]?.annotations,
});

export function showPluginView(v: PluginView): string {
  const annotations = v.annotations && Object.keys(v.annotations).length ? ` and annotations ${JSON.stringify(v.annotations)}` : '';
  return `${v.invoked ? `invoked ${v.tokenPresent ? 'with' : 'without'} a token${annotations}` : 'not invoked'}, pull ${v.pull}`;
}

export const showCache = (v: Record<string, CacheView>): string =>
  Object.entries(v).map(([pod, x]) => `${pod}: ${x.execs} exec${x.execs === 1 ? '' : 's'}, pull ${x.pull}`).join('; ');

export const showAudience = (v: AudienceView): string =>
  `token request ${v.tokenDenied ? 'denied' : 'not denied'}, plugin ${v.invoked ? 'invoked' : 'not invoked'}, pull ${v.pull}`;

export const showTokenAsPassword = (v: Record<string, TokenAsPasswordView>): string =>
  Object.entries(v)
    .map(([cacheType, x]) =>
      `${cacheType}: ${x.invoked ? 'invoked' : 'not invoked'}, response ${x.responseRefused ? 'refused' : 'accepted'}, pull ${x.pull}`)
    .join('; ');

export const showExchange = (v: Record<string, ExchangeView>): string =>
  Object.entries(v)
    .map(([pod, x]) =>
      `${pod}: ${x.invoked ? 'invoked' : 'not invoked'}, ` +
      `token ${x.tokenValidated ? 'validated offline + TokenReview' : 'not validated'}, pull ${x.pull}`)
    .join('; ');

export const showRevocation = (v: Record<string, TokenVerdict>): string =>
  Object.entries(v).map(([step, x]) => `${step}: signature ${x.signature}, TokenReview ${x.tokenReview}`).join('; ');
