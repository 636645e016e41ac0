// A KEP-4412 provider entry as the kubelet of one version reads it, for the
// suites that write a CredentialProviderConfig: which fields exist and which
// feature gate the kubelet needs come from the version table, never from a
// comparison of minors in a suite.
import { ConfigError } from '../../core/errors.ts';
import type { KubeBehaviour } from '../../versions/table.ts';
import { SA_TOKEN_GATE } from './config.ts';
import type { TokenAttributes } from './types.ts';

/**
 * `attrs` without the fields this kubelet does not know: cacheType only where it exists
 * (cacheTypeRequired; a 1.33 kubelet's strict decoding refuses it as an unknown field). Leaving out
 * cacheType: ServiceAccount keeps its meaning on 1.33: the alpha keys a service-account-mode entry by
 * the SA's namespace, name, UID and annotations (v1.33.13 pkg/credentialprovider/plugin/plugin.go
 * generateServiceAccountCacheKey), which 1.34 named cacheType ServiceAccount. cacheType Token has no
 * 1.33 equivalent, so it is refused rather than silently turned into ServiceAccount.
 */
export function tokenAttributesFor(b: KubeBehaviour, attrs: TokenAttributes): TokenAttributes {
  if (b.cacheTypeRequired) return attrs;
  if (attrs.cacheType === 'Token')
    throw new ConfigError(
      `tokenAttributes.cacheType Token: the kubelet 1.${b.minor} has no cacheType and keys service-account-mode entries by the service account (cacheType ServiceAccount's behaviour)`,
      { hint: 'run this provider on a kubelet whose version table row has cacheTypeRequired' },
    );
  const { cacheType: _dropped, ...rest } = attrs;
  return rest;
}

/**
 * The --feature-gates a KEP-4412 provider (tokenAttributes) needs on this version, on the kubelet and on
 * kube-apiserver: none where KubeletServiceAccountTokenForCredentialProviders is on by default (1.34+, beta); the
 * gate on both where it exists but is off (1.33: alpha, default false; v1.33.13 pkg/features/kube_features.go).
 * The kubelet without it refuses the config ("tokenAttributes is not supported when
 * KubeletServiceAccountTokenForCredentialProviders feature gate is disabled", config.go
 * validateCredentialProviderConfig); kube-apiserver without it has the Node authorizer refuse the kubelet's
 * get of the pod's ServiceAccount ("not allowed to get service accounts", node_authorizer.go:241), so the
 * plugin is never run. Where the gate does not exist, no kubelet of that version runs a KEP-4412 provider.
 */
export function saTokenGates(b: KubeBehaviour): {
  kubelet: Record<string, boolean>;
  apiserver: Record<string, boolean>;
} {
  const def = b.gateDefaults.KubeletServiceAccountTokenForCredentialProviders;
  if (def === 'absent')
    throw new ConfigError(`the kubelet 1.${b.minor} has no ${SA_TOKEN_GATE} gate: it cannot run a KEP-4412 provider`);
  const gates: Record<string, boolean> = def ? {} : { [SA_TOKEN_GATE]: true };
  return { kubelet: gates, apiserver: { ...gates } };
}
