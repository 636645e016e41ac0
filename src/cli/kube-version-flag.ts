// The --kube-version flag of the commands that drive real clients (clients ls,
// clients ensure, certify exec-plugin): an exact release, from the flag, else
// $CREDPROV_KUBE_VERSION, else the default. certify exec-plugin also takes a
// minor, as certify kubelet-plugin does (kubeVersionOrMinor).
import { candidateVersions, patchesOf, preReleasesOf } from '../cluster/binaries/versions.ts';
import { kubeCacheRoot, listEntries } from '../cluster/binaries/cache.ts';
import { systemGo, type GoTool } from '../cluster/binaries/go.ts';
import { exactKubeVersion } from '../clients/common.ts';
import { ConfigError, UsageError } from '../core/errors.ts';
import { cacheDir } from '../core/paths.ts';
import { behaviourFor, DEFAULT_KUBE_VERSION, parseKubeVersion } from '../versions/table.ts';

export function kubeVersionFlag(name: string, value: string | undefined, env: NodeJS.ProcessEnv): string {
  const raw = value ?? env.CREDPROV_KUBE_VERSION ?? DEFAULT_KUBE_VERSION;
  const exact = exactKubeVersion(raw);
  if (!exact)
    throw new UsageError(`${name}: --kube-version ${JSON.stringify(raw)} is not an exact version`, {
      hint: 'write it like v1.37.1: kubectl and client-go are taken at that release',
    });
  return exact;
}

/**
 * An exact release for --kube-version given as one (v1.36.5) or as a minor
 * (1.36, v1.36, 1.36.x): the newest release of that minor whose kubectl is
 * cached, else the newest the Go module proxy knows (its pre-release while it
 * has no release). `note` says which one a minor became.
 */
export async function kubeVersionOrMinor(
  name: string,
  value: string | undefined,
  env: NodeJS.ProcessEnv,
  go: () => GoTool = () => systemGo(),
): Promise<{ version: string; note?: string }> {
  const raw = value ?? env.CREDPROV_KUBE_VERSION ?? DEFAULT_KUBE_VERSION;
  const exact = exactKubeVersion(raw);
  if (exact) return { version: exact };
  let spec;
  try {
    spec = parseKubeVersion(raw);
    behaviourFor(spec);
  } catch (e) {
    throw new UsageError(
      `${name}: --kube-version ${JSON.stringify(raw)}: ${e instanceof ConfigError ? e.reason.replace(/^--kube-version: /, '') : String(e)}`,
      {
        hint: 'write it like 1.36 (the newest release of that minor) or v1.36.5',
      },
    );
  }
  const cached = (await listEntries(kubeCacheRoot(cacheDir(env)), ['kubectl'])).map((m) => m.version);
  const local = patchesOf(cached, spec.minor);
  const choice =
    local[0] ??
    (await candidateVersions(spec, go()).catch(() => [] as string[]))[0] ??
    preReleasesOf(cached, spec.minor)[0];
  if (!choice)
    throw new UsageError(
      `${name}: --kube-version ${raw}: no release of Kubernetes 1.${spec.minor} is cached or known to the Go module proxy`,
      {
        hint: `give an exact release (v1.${spec.minor}.N), or run 'credprov binaries ensure --kube-version 1.${spec.minor}'`,
      },
    );
  return {
    version: choice,
    note: `--kube-version ${raw}: taking kubectl and client-go at ${choice}, the newest release of 1.${spec.minor} ${local[0] ? 'cached here' : 'the Go module proxy knows'}`,
  };
}
