// credprov binaries ensure: make kube binaries (and containerd) of a version
// available in the cache; the resolved JSON is the last stdout line.
import { appendFileSync } from 'node:fs';
import { ensureContainerd } from '../cluster/binaries/containerd.ts';
import { resolveKubeBinaries } from '../cluster/binaries/resolve.ts';
import { DEFAULT_KUBE_VERSION } from '../cluster/binaries/versions.ts';
import { ALL_KUBE_BINARIES, KUBE_BINARIES, type KubeBinaryName, type KubeSource } from '../cluster/binaries/cache.ts';
import { ensureKindBuilds } from '../cluster/kind/builds/index.ts';
import { UsageError } from '../core/errors.ts';
import { stderrProgress } from '../core/progress.ts';
import type { Command, CommandContext } from './command.ts';
import { parseFlags } from './flags.ts';
import { withInterrupt } from './interrupt.ts';
import { lateTests, runBuilds, testBuilds, type BuildStage, type BuildTiming } from './test-builds.ts';

const SOURCES: KubeSource[] = ['dir', 'download', 'build'];
const TARGETS = ['kind', 'tests'] as const;

export const command: Command = {
  path: ['binaries', 'ensure'],
  summary: 'fetch or build kubelet, kube-apiserver and kubectl of a version into the cache',
  usage: `Usage: credprov binaries ensure [--kube-version V] [--only NAME]... [--for kind] [--source dir|download|build]... [--dir D] [--download-base-url U]
       credprov binaries ensure --for tests [--stage early|late] [--kube-version V] [--concurrency N] [--timings FILE] [--list-tests]

Resolves kube binaries of one exact release, in this order: a directory you
name (--dir; its binaries must report the version), the cache, the official
release download (--download-base-url, default https://dl.k8s.io/release,
checksums verified), a build from the Go module proxy (first time only).
Also builds a containerd that this kubelet supports (version table), unless
--skip-containerd. With --for kind, also kubeadm, the etcd that kubeadm runs
and the kind CLI (all built from the Go module proxy, each cached on its own).
Prints the result as JSON on the last stdout line.

With --for tests, everything the project's tests need (scripts/test.sh runs it):
the kube binaries and containerd, the older kubelets of the version-skew tests,
the vendor plugins (ecr-credential-provider, aws-iam-authenticator, awscli,
kubelogin, gke-gcloud-auth-plugin, acr-credential-provider), the client-go
probe, and kubeadm, etcd and the kind CLI; up to --concurrency at a time
(default 2), each build's start and end in --timings (tab-separated, ms since
the epoch). It goes on past a failed build and exits 3 if any failed.
--stage early builds what the unit tests and most end-to-end files need;
--stage late the rest, which only the end-to-end files --list-tests prints need.

Flags:
  --kube-version V        1.37.1, 1.37 or 1.37.x (newest patch that a source can deliver); default ${DEFAULT_KUBE_VERSION}
  --only NAME             only these binaries (repeatable): ${KUBE_BINARIES.join(', ')}; e.g. an
                          older minor's kubelet for version skew (--only kubelet --skip-containerd);
                          or kubeadm, built only when named (or with --for kind), added to a cached set
  --for kind              also kubeadm, etcd and the kind CLI for an offline kind node image
  --source S              only these sources, in order (repeatable): dir, download, build
  --dir D                 a directory holding kubelet, kube-apiserver, kubectl
  --download-base-url U   release mirror base URL (<U>/vX.Y.Z/bin/linux/<arch>/<name>)
  --containerd-version C  containerd to build (2.3 or v2.3.7); default: the newest line the kube version supports
  --skip-containerd       only the kube binaries
  --concurrency N         --for tests: builds at a time (default 2)
  --timings FILE          --for tests: append "<name>\t<start ms>\t<end ms>\t<ok|failed>" per build
  --stage early|late      --for tests: only that stage's builds (default both)
  --list-tests            --for tests: print the end-to-end files that need the late stage, build nothing
`,
  async run(argv, ctx) {
    const { values } = parseFlags<{
      'kube-version'?: string;
      source?: string[];
      dir?: string;
      'download-base-url'?: string;
      'containerd-version'?: string;
      'skip-containerd'?: boolean;
      only?: string[];
      for?: string;
      concurrency?: string;
      timings?: string;
      stage?: string;
      'list-tests'?: boolean;
    }>('binaries ensure', argv, {
      'kube-version': { type: 'string' },
      source: { type: 'string', multiple: true },
      dir: { type: 'string' },
      'download-base-url': { type: 'string' },
      'containerd-version': { type: 'string' },
      'skip-containerd': { type: 'boolean' },
      only: { type: 'string', multiple: true },
      for: { type: 'string' },
      concurrency: { type: 'string' },
      timings: { type: 'string' },
      stage: { type: 'string' },
      'list-tests': { type: 'boolean' },
    });
    if (values.for !== undefined && !(TARGETS as readonly string[]).includes(values.for))
      throw new UsageError(`binaries ensure: --for ${values.for} is not one of ${TARGETS.join(', ')}`);
    if (values.for === 'tests') {
      const clash = (
        ['only', 'source', 'dir', 'download-base-url', 'containerd-version', 'skip-containerd'] as const
      ).filter((f) => values[f] !== undefined);
      if (clash.length > 0)
        throw new UsageError(`binaries ensure: --for tests builds a fixed list; drop --${clash.join(', --')}`);
      if (values.stage !== undefined && values.stage !== 'early' && values.stage !== 'late')
        throw new UsageError(`binaries ensure: --stage ${values.stage} is not one of early, late`);
      if (values['list-tests']) {
        for (const f of lateTests(testBuilds())) ctx.stdout(`${f}\n`);
        return 0;
      }
      const concurrency = Number(values.concurrency ?? 2);
      if (!Number.isInteger(concurrency) || concurrency < 1)
        throw new UsageError(`binaries ensure: --concurrency ${values.concurrency} is not a whole number above 0`);
      return ensureForTests(ctx, {
        kubeVersion: values['kube-version'] ?? ctx.env.CREDPROV_KUBE_VERSION ?? DEFAULT_KUBE_VERSION,
        concurrency,
        ...(values.timings ? { timings: values.timings } : {}),
        ...(values.stage ? { stage: values.stage } : {}),
      });
    } else if ([values.concurrency, values.timings, values.stage, values['list-tests']].some((v) => v !== undefined))
      throw new UsageError('binaries ensure: --concurrency, --timings, --stage and --list-tests go with --for tests');
    const sources = values.source?.map((s) => {
      if (!SOURCES.includes(s as KubeSource))
        throw new UsageError(`binaries ensure: --source ${s} is not one of ${SOURCES.join(', ')}`);
      return s as KubeSource;
    });
    const names = values.only?.map((n) => {
      if (!(ALL_KUBE_BINARIES as readonly string[]).includes(n))
        throw new UsageError(`binaries ensure: --only ${n} is not one of ${ALL_KUBE_BINARIES.join(', ')}`);
      return n as KubeBinaryName;
    });
    const progress = stderrProgress();
    const version = values['kube-version'] ?? ctx.env.CREDPROV_KUBE_VERSION ?? DEFAULT_KUBE_VERSION;
    const result = await withInterrupt(async (signal) => {
      // containerd's line follows from the kube minor alone: it builds beside the kube binaries (a cold main
      // job's two longest builds), and each waits for the other before any error is thrown.
      const [kubeResult, containerdResult] = await Promise.allSettled([
        resolveKubeBinaries({
          version,
          ...(sources ? { sources } : {}),
          ...(names ? { names } : {}),
          ...(values.dir ? { dir: values.dir } : {}),
          ...(values['download-base-url'] ? { downloadBaseUrl: values['download-base-url'] } : {}),
          progress,
          log: ctx.log,
          signal,
        }),
        values['skip-containerd']
          ? undefined
          : ensureContainerd({
              kubeVersion: version,
              ...(values['containerd-version'] ? { version: values['containerd-version'] } : {}),
              progress,
              log: ctx.log,
              signal,
            }),
      ]);
      if (kubeResult.status === 'rejected') throw kubeResult.reason;
      if (containerdResult.status === 'rejected') throw containerdResult.reason;
      const kube = kubeResult.value;
      const containerd = containerdResult.value;
      const forKind =
        values.for === 'kind'
          ? await ensureKindBuilds({ kubeVersion: kube.version, progress, log: ctx.log, signal })
          : undefined;
      return { kube, containerd, forKind };
    });
    const { manifest: _manifest, ...kube } = result.kube;
    ctx.stdout(
      `${JSON.stringify({
        ...kube,
        ...(result.containerd ? { containerd: result.containerd } : {}),
        ...(result.forKind ? { kind: result.forKind } : {}),
      })}\n`,
    );
    return 0;
  },
};

/** --for tests: every build, a table of their times on stderr, the same as JSON on stdout; 3 when any failed. */
async function ensureForTests(
  ctx: CommandContext,
  o: { kubeVersion: string; concurrency: number; timings?: string; stage?: BuildStage },
): Promise<number> {
  const progress = stderrProgress();
  // As each build ends: a run cut short still has the times of what finished.
  const record = (t: BuildTiming) => {
    if (o.timings) appendFileSync(o.timings, `${t.name}\t${t.startedAt}\t${t.endedAt}\t${t.error ? 'failed' : 'ok'}\n`);
  };
  const builds = testBuilds(o.kubeVersion).filter((b) => !o.stage || b.stage === o.stage);
  const timings = await withInterrupt((signal) =>
    runBuilds(builds, { progress, log: ctx.log, signal }, o.concurrency, record),
  );
  const w = (line: string) => process.stderr.write(`${line}\n`);
  w('\nbuilds for the tests:');
  for (const t of timings)
    w(
      `  ${t.name.padEnd(24)} ${((t.endedAt - t.startedAt) / 1000).toFixed(1).padStart(7)} s${t.error ? `  FAILED: ${t.error}` : ''}`,
    );
  ctx.stdout(
    `${JSON.stringify({ builds: timings.map((t) => ({ name: t.name, seconds: (t.endedAt - t.startedAt) / 1000, ...(t.error ? { error: t.error } : {}) })) })}\n`,
  );
  return timings.some((t) => t.error) ? 3 : 0;
}
