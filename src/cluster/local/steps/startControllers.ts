// kube-controller-manager and kube-scheduler from the same build as the API
// server, so suites can use ordinary objects: pods without nodeName,
// namespaces that finish deleting, service accounts and their tokens made by
// controllers. Both start at once and are awaited together; neither needs the
// other, and each serves /healthz on its own loopback port with a cert of the
// cluster CA (without one they would write self-signed certs to /var/run).
import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { get } from '../net.ts';
import { runningDaemons, startDaemon, waitFor } from '../daemon.ts';
import type { Step, StepContext } from '../context.ts';

export const CONTROLLERS = ['kube-controller-manager', 'kube-scheduler'] as const;

export function controllerManagerArgs(ctx: StepContext): string[] {
  const { pki, layout, state } = ctx;
  const kc = layout.controllerManagerKubeconfig;
  return [
    `--kubeconfig=${kc}`,
    `--authentication-kubeconfig=${kc}`,
    `--authorization-kubeconfig=${kc}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${state.ports.controllerManager}`,
    `--tls-cert-file=${pki.loopbackServingCert}`,
    `--tls-private-key-file=${pki.loopbackServingKey}`,
    `--client-ca-file=${pki.caCert}`,
    // Tokens for each controller's own service account, as on a real control plane.
    '--use-service-account-credentials=true',
    `--service-account-private-key-file=${pki.saKey}`,
    `--root-ca-file=${pki.caCert}`,
    '--leader-elect=false',
    '--profiling=false',
  ];
}

export function schedulerConfiguration(ctx: StepContext): Record<string, unknown> {
  return {
    apiVersion: 'kubescheduler.config.k8s.io/v1',
    kind: 'KubeSchedulerConfiguration',
    clientConnection: { kubeconfig: ctx.layout.schedulerKubeconfig },
    leaderElection: { leaderElect: false },
    enableProfiling: false,
  };
}

export function schedulerArgs(ctx: StepContext): string[] {
  const { pki, layout, state } = ctx;
  return [
    `--config=${layout.schedulerConfig}`,
    `--authentication-kubeconfig=${layout.schedulerKubeconfig}`,
    `--authorization-kubeconfig=${layout.schedulerKubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${state.ports.scheduler}`,
    `--tls-cert-file=${pki.loopbackServingCert}`,
    `--tls-private-key-file=${pki.loopbackServingKey}`,
    `--client-ca-file=${pki.caCert}`,
  ];
}

export const startControllers: Step = {
  name: 'start kube-controller-manager and kube-scheduler',
  async run(ctx) {
    const b = ctx.state.binaries;
    await writeFile(ctx.layout.schedulerConfig, stringify(schedulerConfiguration(ctx)));
    const started = [
      {
        daemon: await startDaemon(
          { name: 'kube-controller-manager', bin: b.kubeControllerManager, args: controllerManagerArgs(ctx) },
          ctx.layout,
          ctx.log,
        ),
        port: ctx.state.ports.controllerManager,
      },
      {
        daemon: await startDaemon(
          { name: 'kube-scheduler', bin: b.kubeScheduler, args: schedulerArgs(ctx) },
          ctx.layout,
          ctx.log,
        ),
        port: ctx.state.ports.scheduler,
      },
    ];
    const dependsOn = await runningDaemons(ctx.layout, ['etcd', 'kube-apiserver']);
    await Promise.all(
      started.map(({ daemon, port }) =>
        waitFor(
          `${daemon.name} /healthz`,
          async () => (await get(`https://127.0.0.1:${port}/healthz`, { ca: ctx.pki.caCert })).status === 200,
          { timeoutMs: 60_000, daemon, dependsOn, intervalMs: 250, signal: ctx.signal },
        ),
      ),
    );
  },
};
