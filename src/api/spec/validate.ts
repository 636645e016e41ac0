// Validation of a defaulted spec: every problem at once, each with its field
// path and the rule it breaks (kind's validate.go pattern).
import { parseGoDuration } from '../../core/duration.ts';
import { CredprovError, type FieldProblem } from '../../core/errors.ts';
import { behaviourFor } from '../../versions/table.ts';
import { skewProblem } from '../../versions/skew.ts';
import type { EnvironmentSpec } from './types.ts';

const PROVIDERS = ['auto', 'local', 'kind', 'existing'];
/** Each kind node is a systemd container with its own kubelet and containerd: more than this does not fit 2 cores. */
const MAX_KIND_WORKERS = 3;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Kubelet flags the harness sets itself; a spec that sets them would silently fight it. */
export const OWNED_KUBELET_FLAGS = [
  '--config',
  '--kubeconfig',
  '--root-dir',
  '--cert-dir',
  '--hostname-override',
  '--node-ip',
  '--image-credential-provider-config',
  '--image-credential-provider-bin-dir',
];
/** KubeletConfiguration fields the harness owns (ports, endpoints, auth). */
export const OWNED_KUBELET_FIELDS = [
  'apiVersion',
  'kind',
  'address',
  'port',
  'healthzPort',
  'healthzBindAddress',
  'containerRuntimeEndpoint',
  'authentication',
  'authorization',
  'podLogsDir',
  'featureGates',
];
const OWNED_APISERVER_FLAGS = [
  '--etcd-servers',
  '--secure-port',
  '--bind-address',
  '--client-ca-file',
  '--tls-cert-file',
  '--tls-private-key-file',
  '--service-account-issuer',
  '--service-account-key-file',
  '--service-account-signing-key-file',
  '--feature-gates',
  '--authentication-config',
];

export function validateSpec(spec: EnvironmentSpec): FieldProblem[] {
  const p: FieldProblem[] = [];
  const bad = (field: string, message: string) => p.push({ field, message });

  if (!DNS_LABEL.test(spec.name) || spec.name.length > 40)
    bad('name', `'${spec.name}' must be lower-case letters, digits and '-', at most 40 characters`);
  if (!PROVIDERS.includes(spec.provider)) bad('provider', `'${spec.provider}' is not one of ${PROVIDERS.join(', ')}`);
  try {
    behaviourFor(spec.kubeVersion);
  } catch (err) {
    bad('kubeVersion', err instanceof CredprovError ? err.reason : String(err));
  }
  if (spec.kubelet.version !== undefined) {
    try {
      behaviourFor(spec.kubelet.version);
      const skew = skewProblem(spec.kubeVersion, spec.kubelet.version);
      if (skew) bad('kubelet.version', skew);
    } catch (err) {
      bad('kubelet.version', err instanceof CredprovError ? err.reason : String(err));
    }
  }
  if (!DNS_SUBDOMAIN.test(spec.kubelet.nodeName) || spec.kubelet.nodeName.length > 63)
    bad('kubelet.nodeName', `'${spec.kubelet.nodeName}' is not a valid node name (lower-case DNS subdomain)`);
  for (const key of Object.keys(spec.kubelet.config)) {
    if (OWNED_KUBELET_FIELDS.includes(key))
      bad(
        `kubelet.config.${key}`,
        key === 'featureGates'
          ? 'set feature gates under featureGates.kubelet'
          : 'is set by the harness; it cannot be overridden',
      );
  }
  spec.kubelet.extraArgs.forEach((a, i) => {
    if (!a.startsWith('--')) bad(`kubelet.extraArgs[${i}]`, `'${a}' is not a --flag`);
    else if (OWNED_KUBELET_FLAGS.includes(a.split('=')[0]!))
      bad(
        `kubelet.extraArgs[${i}]`,
        `${a.split('=')[0]} is set by the harness${a.startsWith('--image-credential-provider') ? '; use credentialProvider instead' : ''}`,
      );
  });
  spec.apiserver.extraArgs.forEach((a, i) => {
    if (!a.startsWith('--')) bad(`apiserver.extraArgs[${i}]`, `'${a}' is not a --flag`);
    else if (OWNED_APISERVER_FLAGS.includes(a.split('=')[0]!))
      bad(`apiserver.extraArgs[${i}]`, `${a.split('=')[0]} is set by the harness`);
  });

  const cp = spec.credentialProvider;
  if (cp) {
    if (cp.config && cp.configFile) bad('credentialProvider', 'set config or configFile, not both');
    if (!cp.config && !cp.configFile) bad('credentialProvider', 'needs config (inline) or configFile');
    for (const name of Object.keys(cp.plugins)) {
      if (name === '' || name === '.' || name === '..' || name.includes('/'))
        bad(
          `credentialProvider.plugins.${name}`,
          'a plugin name must be a plain file name (the kubelet execs <binDir>/<name>)',
        );
    }
    if (cp.config) {
      const c = cp.config;
      if (c.kind !== 'CredentialProviderConfig')
        bad('credentialProvider.config.kind', 'expected CredentialProviderConfig');
      if (typeof c.apiVersion !== 'string' || !/^kubelet\.config\.k8s\.io\/v1(alpha1|beta1)?$/.test(c.apiVersion))
        bad('credentialProvider.config.apiVersion', 'expected kubelet.config.k8s.io/v1, v1beta1 or v1alpha1');
      const providers = Array.isArray(c.providers) ? (c.providers as Array<{ name?: unknown }>) : [];
      if (!Array.isArray(c.providers)) bad('credentialProvider.config.providers', 'expected a list of providers');
      providers.forEach((pr, i) => {
        if (typeof pr?.name === 'string' && !(pr.name in cp.plugins))
          bad(
            `credentialProvider.config.providers[${i}].name`,
            `no plugin named '${pr.name}' under credentialProvider.plugins`,
          );
      });
    }
  }

  if (spec.provider === 'existing' && !spec.existing?.kubeconfig)
    bad('existing.kubeconfig', "provider 'existing' needs a kubeconfig");
  if (spec.existing && spec.provider !== 'existing' && spec.provider !== 'auto')
    bad('existing', `only used with provider 'existing', not '${spec.provider}'`);
  if (spec.kindCluster) {
    const w = spec.kindCluster.workers;
    if (!Number.isInteger(w) || w < 0 || w > MAX_KIND_WORKERS)
      bad('kindCluster.workers', `'${w}' is not a whole number from 0 to ${MAX_KIND_WORKERS}`);
    if (spec.provider !== 'kind' && spec.provider !== 'auto')
      bad('kindCluster', `only used with provider 'kind', not '${spec.provider}'`);
  }
  const ready = parseGoDuration(spec.timeouts.nodeReady);
  if (ready === undefined || ready <= 0)
    bad('timeouts.nodeReady', `'${spec.timeouts.nodeReady}' is not a positive duration like 90s or 2m`);
  return p;
}
