// Restarting one kind node's kubelet with another spec: its KubeletConfiguration
// (the spec's fragment over kubeadm's, never staticPodPath) and its flags
// (kubeadm's own, then credprov's). kubeadm's config and flags are kept aside
// on the first restart and every restart starts from them: a gate or field an
// earlier restart set must not outlive the spec that set it. The
// restart is done when the new kubelet answers /healthz, which it does only
// once its config and credential providers loaded; a kubelet that refuses
// them exits, systemd starts it again (kind's unit: Restart=always), and the
// restart fails with the kubelet's own error, as on the local provider.
import { parse, stringify } from 'yaml';
import type { EnvironmentSpec } from '../../api/spec/types.ts';
import { CredprovError } from '../../core/errors.ts';
import type { KubeletChange } from '../provider.ts';
import { systemClock, type Clock } from '../../core/time.ts';
import { nodeKubeletConfig } from './config.ts';
import { must, type Runner } from './tools.ts';

const SET_FLAGS = `set -e
f=/var/lib/kubelet/kubeadm-flags.env
[ -f "$f.kubeadm" ] || cp "$f" "$f.kubeadm"
. "$f.kubeadm"
printf 'KUBELET_KUBEADM_ARGS="%s %s"\\n' "$KUBELET_KUBEADM_ARGS" "$(cat)" > "$f"`;

const KUBEADM_CONFIG = `set -e
f=/var/lib/kubelet/config.yaml
[ -f "$f.kubeadm" ] || cp "$f" "$f.kubeadm"
cat "$f.kubeadm"`;

/** The environment's spec after a kubelet change: the change's feature gates replace the kubelet's set (the provider contract). */
export function specAfterKubeletChange(current: EnvironmentSpec, change: KubeletChange): EnvironmentSpec {
  const spec = { ...current, kubelet: { ...current.kubelet, ...change.kubelet } } as EnvironmentSpec;
  if (change.featureGates) spec.featureGates = { ...spec.featureGates, kubelet: { ...change.featureGates } };
  if (change.credentialProvider === null) delete spec.credentialProvider;
  else if (change.credentialProvider) spec.credentialProvider = change.credentialProvider;
  return spec;
}

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
    await must(run, "read kubeadm's kubelet config", 'docker', ['exec', node, 'sh', '-c', KUBEADM_CONFIG]),
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
  await waitForKubelet(run, node);
}

const JOURNAL_DETAIL_LINES = 60;

/** One look at the node's kubelet: systemd's count of its automatic restarts, and its /healthz answer's last line. */
const LOOK = `printf '%s ' "$(systemctl show kubelet -p NRestarts --value)"
( exec 3<>/dev/tcp/127.0.0.1/10248 && printf 'GET /healthz HTTP/1.0\r\n\r\n' >&3 && tail -n 1 <&3 ) 2>/dev/null || true`;

/**
 * Waits until the node's kubelet answers /healthz `ok`; a kubelet that exits
 * meanwhile (systemd counts an automatic restart) refused its config: an
 * error with its last error line, and its journal as the detail.
 */
export async function waitForKubelet(
  run: Runner,
  node: string,
  o: { timeoutMs?: number; intervalMs?: number; clock?: Clock } = {},
): Promise<void> {
  const clock = o.clock ?? systemClock;
  const look = async () => {
    const out = (await run('docker', ['exec', node, 'bash', '-c', LOOK])).stdout.trim();
    const [restarts, ...health] = out.split(/\s+/);
    return { restarts: Number(restarts), ok: health.join(' ') === 'ok' };
  };
  const first = await look();
  const deadline = clock.now() + (o.timeoutMs ?? 60_000);
  for (let seen = first; ; seen = await look()) {
    if (seen.ok) return;
    if (seen.restarts > first.restarts || clock.now() > deadline) {
      // By the time systemd has counted the restart, the next kubelet may have logged its whole start-up:
      // read well past it for the exiting one's error line, and keep the tail as the detail.
      const lines = (
        await run('docker', ['exec', node, 'journalctl', '-u', 'kubelet', '-n', '400', '--no-pager', '-o', 'cat'])
      ).stdout.split('\n');
      const why = lines.filter((l) => /err="|error|Error/.test(l)).pop();
      const what = seen.restarts > first.restarts ? 'exited after the restart' : 'did not answer /healthz within 60s';
      throw new CredprovError(`the kubelet of ${node} ${what}${why ? `: ${why.trim()}` : ''}`, {
        detail: lines.slice(-JOURNAL_DETAIL_LINES).join('\n'),
      });
    }
    await clock.sleep(o.intervalMs ?? 500);
  }
}
