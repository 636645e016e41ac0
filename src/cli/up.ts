// credprov up: bring an environment up and leave it running; the last stdout
// line is one JSON object describing it (for scripts: jq -r .kubeconfig).
import { loadSpec } from '../api/spec/index.ts';
import type { PartialSpec } from '../api/spec/defaults.ts';
import type { ProviderName } from '../api/spec/types.ts';
import { stderrProgress } from '../core/progress.ts';
import { resolveProvider } from '../cluster/detect.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';
import { announceInterrupt } from './output.ts';
import { onInterrupt } from './signals.ts';

const USAGE = `Usage: credprov up [--provider local|kind|existing|auto] [--kube-version V] [--kubelet-version V] [--spec FILE] [--name NAME] [--bin-dir DIR] [--workers N] [--node-image REF] [--keep]

Brings up a cluster environment and leaves it running (credprov down removes it).
Prints one JSON object on the last stdout line: {"provider","name","kubeVersion","kubeconfig","binDir","kubectl","nodeName","stateDir",...}.

  --provider      local (processes on this host), kind, existing (a kubeconfig), auto (default: first available)
  --kube-version  Kubernetes version of kubelet and kube-apiserver (default v1.37.1)
  --kubelet-version  an older kubelet under that control plane (version skew: up to 3 minors older, never newer)
  --spec          environment spec YAML (see src/api/spec/testdata/valid-full.yaml)
  --name          environment name (default: default); several can run side by side
  --bin-dir       directory with kubelet, kube-apiserver and kubectl to use as is
  --workers N     kind: N worker nodes beside the control plane (0-3, default 0)
  --node-image R  kind: this node image as is (kindest/node:v1.37.0@sha256:...); default credprov/kind-node:<version>, built offline
  --keep          keep a failed environment for inspection instead of tearing it down
Environment: CREDPROV_PROVIDER, CREDPROV_KUBE_VERSION, CREDPROV_KUBE_BIN_DIR, CREDPROV_ENV_NAME, CREDPROV_KUBECONFIG, CREDPROV_*_FEATURE_GATES
`;

export interface SpecFlags {
  provider?: string;
  workers?: string;
  'node-image'?: string;
  'kube-version'?: string;
  'kubelet-version'?: string;
  spec?: string;
  name?: string;
  'bin-dir'?: string;
}

export const SPEC_FLAG_OPTIONS = {
  provider: { type: 'string' },
  workers: { type: 'string' },
  'node-image': { type: 'string' },
  'kube-version': { type: 'string' },
  'kubelet-version': { type: 'string' },
  spec: { type: 'string' },
  name: { type: 'string' },
  'bin-dir': { type: 'string' },
} as const;

export function specOverrides(v: SpecFlags): PartialSpec {
  return {
    ...(v.provider ? { provider: v.provider as ProviderName | 'auto' } : {}),
    ...(v['kube-version'] ? { kubeVersion: v['kube-version'] } : {}),
    ...(v['kubelet-version'] ? { kubelet: { version: v['kubelet-version'] } } : {}),
    ...(v.name ? { name: v.name } : {}),
    ...(v['bin-dir'] ? { binDir: v['bin-dir'] } : {}),
    ...(v.workers !== undefined || v['node-image']
      ? {
          kindCluster: {
            ...(v.workers !== undefined ? { workers: Number(v.workers) } : {}),
            ...(v['node-image'] ? { nodeImage: v['node-image'] } : {}),
          },
        }
      : {}),
  };
}

export const command: Command = {
  path: ['up'],
  summary: 'bring up a cluster environment (local processes or kind)',
  usage: USAGE,
  async run(argv, ctx) {
    const { values } = parseFlags<SpecFlags & { keep?: boolean }>('up', argv, {
      ...SPEC_FLAG_OPTIONS,
      keep: { type: 'boolean' },
    });
    const spec = await loadSpec({
      ...(values.spec ? { file: values.spec } : {}),
      env: ctx.env,
      overrides: specOverrides(values),
      log: ctx.log,
    });
    const provider = await resolveProvider(spec.provider, { log: ctx.log, env: ctx.env });
    const progress = stderrProgress();
    const release = onInterrupt(
      async () => {
        if (!values.keep) await provider.down(spec.name, progress);
      },
      undefined,
      announceInterrupt(ctx),
    );
    try {
      const env = await provider.up(spec, progress, { keep: values.keep ?? false });
      ctx.stdout(
        `${JSON.stringify({ provider: env.provider, name: env.name, kubeVersion: env.kubeVersion, kubeconfig: env.kubeconfig, binDir: env.binDir, kubectl: env.kubectl, nodeName: env.nodeName, stateDir: env.stateDir, logsDir: env.logsDir, ...(env.containerd ? { containerdAddress: env.containerd.address, registryConfigPath: env.containerd.certsDir } : {}), ...(env.pluginBinDir ? { pluginBinDir: env.pluginBinDir } : {}) })}\n`,
      );
      return 0;
    } finally {
      release();
    }
  },
};
