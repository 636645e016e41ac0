// The KubeletConfiguration: the harness's base (loopback ports, cgroupfs on a
// cgroup v1 host, no swap check, everything under the environment dir) with
// the spec's fragments merged over it.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import type { Step, StepContext } from '../context.ts';

export function kubeletConfiguration(ctx: StepContext): Record<string, unknown> {
  const { spec, ports, files } = ctx.node;
  const base: Record<string, unknown> = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: ctx.node.nodeIP,
    port: ports.kubelet,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: ports.kubeletHealthz,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: ctx.pki.caCert },
    },
    authorization: { mode: 'Webhook' },
    containerRuntimeEndpoint: `unix://${files.containerdSocket}`,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: `/${ctx.node.cgroupRoot}`,
    // The host is cgroup v1; from 1.35 the kubelet refuses it unless told otherwise.
    failCgroupV1: false,
    failSwapOn: false,
    // Lowering it needs CAP_SYS_RESOURCE, which sandboxed hosts lack; 0 is what we already have.
    oomScoreAdj: 0,
    registerNode: true,
    podLogsDir: files.podLogs,
    resolvConf: '/etc/resolv.conf',
    // A shared CI box's disk must not taint the node with disk pressure mid-run.
    evictionHard: {
      'memory.available': '50Mi',
      'nodefs.available': '1%',
      'imagefs.available': '1%',
      'nodefs.inodesFree': '1%',
    },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    serializeImagePulls: true,
    // The default (5 pulls/s, burst 10) is a guard for shared registries. A suite creates its pods in one
    // burst (faster since the harness talks to the API server directly), and a pull the limiter refuses fails
    // as "pull QPS exceeded": an outcome about the limiter, not about credentials. 0 is unlimited.
    registryPullQPS: 0,
    syncFrequency: '5s',
    fileCheckFrequency: '5s',
    nodeStatusUpdateFrequency: '5s',
    featureGates: { ...spec.featureGates.kubelet },
  };
  return deepMerge(base, spec.kubelet.config);
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isObject(b) && isObject(v) ? deepMerge(b, v) : v;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const writeKubeletConfig: Step = {
  name: 'write kubelet config',
  async run(ctx) {
    await mkdir(dirname(ctx.node.files.kubeletConfig), { recursive: true });
    await writeFile(ctx.node.files.kubeletConfig, stringify(kubeletConfiguration(ctx)));
  },
};
