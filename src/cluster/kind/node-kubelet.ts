// Restarting one kind node's kubelet with another spec: its KubeletConfiguration
// (the spec's fragment over kubeadm's, never staticPodPath) and its flags
// (kubeadm's own, kept aside on the first restart, then credprov's).
import { parse, stringify } from 'yaml';
import type { EnvironmentSpec } from '../../api/spec/types.ts';
import { nodeKubeletConfig } from './config.ts';
import { must, type Runner } from './tools.ts';

const SET_FLAGS = `set -e
f=/var/lib/kubelet/kubeadm-flags.env
[ -f "$f.kubeadm" ] || cp "$f" "$f.kubeadm"
. "$f.kubeadm"
printf 'KUBELET_KUBEADM_ARGS="%s %s"\\n' "$KUBELET_KUBEADM_ARGS" "$(cat)" > "$f"`;

export async function restartNodeKubelet(
  run: Runner,
  node: string,
  spec: EnvironmentSpec,
  flags: Record<string, string>,
): Promise<void> {
  await must(run, `set ${node}'s kubelet flags`, 'docker', ['exec', '-i', node, 'sh', '-c', SET_FLAGS], {
    input: Object.entries(flags)
      .map(([k, v]) => `--${k}=${v}`)
      .join(' '),
  });
  const current = parse(
    await must(run, 'read kubelet config', 'docker', ['exec', node, 'cat', '/var/lib/kubelet/config.yaml']),
  ) as Record<string, unknown>;
  const next = {
    ...current,
    ...nodeKubeletConfig(spec),
    featureGates: { ...(current.featureGates as object | undefined), ...spec.featureGates.kubelet },
  };
  await must(
    run,
    'write kubelet config',
    'docker',
    ['exec', '-i', node, 'sh', '-c', 'cat > /var/lib/kubelet/config.yaml'],
    {
      input: stringify(next),
    },
  );
  await must(run, 'restart kubelet', 'docker', ['exec', node, 'systemctl', 'restart', 'kubelet']);
}
