// The node is usable once it is registered and Ready (runtime and CNI up).
import { parseGoDuration } from '../../../core/duration.ts';
import { kubeApi } from '../../api.ts';
import { recordedPid, runningDaemons, waitFor } from '../daemon.ts';
import type { Step } from '../context.ts';

export const waitForNodeReady: Step = {
  name: 'wait for node Ready',
  async run(ctx) {
    const api = await kubeApi({ kubeconfig: ctx.layout.adminKubeconfig });
    const { name, daemons } = ctx.node;
    const pid = await recordedPid(ctx.layout.pids, daemons.kubelet);
    // Ready needs the API server (and its etcd) to record it and containerd to report the runtime: one dying ends the wait with its own error.
    const dependsOn = await runningDaemons(ctx.layout, ['etcd', 'kube-apiserver', daemons.containerd]);
    await waitFor(
      `node ${name} to become Ready`,
      async () => {
        const node = await api.core.readNode({ name });
        // After a kubelet restart the old Ready condition lingers; only a heartbeat from the new kubelet counts
        // (heartbeat times have second precision, hence the 1s slack).
        const since = (ctx.kubeletStartedAt ?? 0) - 1000;
        return (
          node.status?.conditions?.some(
            (c) => c.type === 'Ready' && c.status === 'True' && (c.lastHeartbeatTime?.getTime() ?? 0) >= since,
          ) ?? false
        );
      },
      {
        timeoutMs: parseGoDuration(ctx.state.spec.timeouts.nodeReady) ?? 90_000,
        // A read costs a few milliseconds over the pooled connection: look often, so a restart is not slowed by the wait.
        intervalMs: 100,
        signal: ctx.signal,
        dependsOn,
        ...(pid
          ? { daemon: { name: daemons.kubelet, pid, logFile: `${ctx.layout.logs}/${daemons.kubelet}.log` } }
          : {}),
      },
    );
  },
};
