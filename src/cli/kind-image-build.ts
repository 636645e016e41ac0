// credprov kind image build: credprov's offline kind node image for a version
// (what `up --provider kind` builds on first use), cached by its inputs.
import { resolveEngine, stopOwnEngine } from '../cluster/kind/engine.ts';
import { ensureNodeImage } from '../cluster/kind/node-image/ensure.ts';
import { execaRunner } from '../cluster/kind/tools.ts';
import { DEFAULT_KUBE_VERSION } from '../cluster/binaries/versions.ts';
import { PrerequisiteError } from '../core/errors.ts';
import { cacheDir } from '../core/paths.ts';
import { stderrProgress } from '../core/progress.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';
import { withInterrupt } from './interrupt.ts';
import { kubeVersionFlag } from './kube-version-flag.ts';
import { printJson } from './output.ts';

const USAGE = `Usage: credprov kind image build [--kube-version V] [--force]

Builds credprov/kind-node:<version> without Docker Hub or release downloads: a
Debian root filesystem (mmdebstrap), kind v0.33.0's base files, and kubelet,
kubeadm, kubectl, the control plane, etcd and containerd built from the Go
module proxy, with the control-plane images imported into the node's
containerd as kind does. Cached by its inputs: a second build takes seconds.
Uses the Docker engine that answers, else starts credprov's own (stopped again
after the build when no kind cluster runs). Prints {"image","cached","inputs"}.

  --kube-version V  an exact release (the image is tagged with it); default ${DEFAULT_KUBE_VERSION}
  --force           rebuild even when an image with the same inputs exists
`;

export const command: Command = {
  path: ['kind', 'image', 'build'],
  summary: "build credprov's offline kind node image for a Kubernetes version",
  usage: USAGE,
  async run(argv, ctx) {
    const { values } = parseFlags<{ 'kube-version'?: string; force?: boolean }>('kind image build', argv, {
      'kube-version': { type: 'string' },
      force: { type: 'boolean' },
    });
    const kubeVersion = kubeVersionFlag('kind image build', values['kube-version'], ctx.env);
    const progress = stderrProgress();
    const running = await resolveEngine({ env: ctx.env });
    const engine = running ?? (await resolveEngine({ env: ctx.env, start: true, onProgress: (l) => progress.note(l) }));
    if (!engine)
      throw new PrerequisiteError('no Docker engine answers, and DOCKER_HOST names one credprov cannot start');
    try {
      const built = await withInterrupt((signal) =>
        ensureNodeImage({
          kubeVersion,
          run: execaRunner(ctx.log, undefined, () => ({ DOCKER_HOST: engine.host })),
          progress,
          cacheDir: cacheDir(ctx.env),
          log: ctx.log,
          signal,
          ...(values.force ? { force: true } : {}),
        }),
      );
      progress.note(`${built.ref} ${built.cached ? 'was already built from these inputs' : 'built'}`);
      printJson(ctx, { image: built.ref, cached: built.cached, inputs: built.inputs });
      return 0;
    } finally {
      // An engine this command started serves no cluster: it stops again (its data root keeps the image).
      if (!running && engine.kind === 'own') await stopOwnEngine();
    }
  },
};
