// A node's kubelet, as that node, talking to the node's containerd and the API server.
import { mkdir } from 'node:fs/promises';
import { get } from '../net.ts';
import { startDaemon, stopDaemon, waitFor } from '../daemon.ts';
import { TimeoutError } from '../../../core/errors.ts';
import type { Step, StepContext } from '../context.ts';

export function kubeletArgs(ctx: StepContext): string[] {
  const { spec, files: l } = ctx.node;
  const args = [
    `--config=${l.kubeletConfig}`,
    `--kubeconfig=${l.kubeletKubeconfig}`,
    `--root-dir=${l.kubeletRoot}`,
    `--cert-dir=${l.kubeletRoot}/pki`,
    `--hostname-override=${spec.kubelet.nodeName}`,
    `--node-ip=${ctx.node.nodeIP}`,
    '--v=2',
  ];
  const cp = spec.credentialProvider;
  if (cp) {
    args.push(
      `--image-credential-provider-config=${cp.configFile ?? l.credentialProviderConfig}`,
      `--image-credential-provider-bin-dir=${l.pluginBin}`,
    );
  }
  return [...args, ...spec.kubelet.extraArgs];
}

export const startKubelet: Step = {
  name: 'start kubelet',
  async run(ctx) {
    const { files, daemons } = ctx.node;
    await mkdir(files.kubeletRoot, { recursive: true });
    await mkdir(files.podLogs, { recursive: true });
    for (let attempt = 1; ; attempt++) {
      // cwd is the kubelet root: a config.json in the cwd would become node-level registry credentials (KEP-2535).
      ctx.kubeletStartedAt = Date.now();
      const daemon = await startDaemon(
        { name: daemons.kubelet, bin: ctx.node.kubeletBinary, args: kubeletArgs(ctx), cwd: files.kubeletRoot },
        ctx.layout,
        ctx.log,
      );
      try {
        await waitFor(
          `${daemons.kubelet} /healthz`,
          async () => (await get(`http://127.0.0.1:${ctx.node.ports.kubeletHealthz}/healthz`)).status === 200,
          { timeoutMs: 60_000, daemon, intervalMs: 250, signal: ctx.signal },
        );
        return;
      } catch (err) {
        // A kubelet that neither answers nor exits within a minute has stalled (seen once in a full CI
        // run, where it usually answers in under a second): start it once more. The stalled attempt
        // stays in kubelet.log (appended), and a second stall is an error.
        if (!(err instanceof TimeoutError) || attempt > 1) throw err;
        ctx.log.warn(
          `kubelet did not answer /healthz within 60s (pid ${daemon.pid}); starting it once more, the stalled attempt is in ${daemon.logFile}`,
        );
        await stopDaemon(ctx.layout.pids, daemons.kubelet);
      }
    }
  },
};
