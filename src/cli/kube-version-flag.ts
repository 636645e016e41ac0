// The --kube-version flag of the commands that drive real clients (clients ls,
// clients ensure, certify exec-plugin): an exact release, from the flag, else
// $CREDPROV_KUBE_VERSION, else the default.
import { exactKubeVersion } from '../clients/common.ts';
import { UsageError } from '../core/errors.ts';
import { DEFAULT_KUBE_VERSION } from '../versions/table.ts';

export function kubeVersionFlag(name: string, value: string | undefined, env: NodeJS.ProcessEnv): string {
  const raw = value ?? env.CREDPROV_KUBE_VERSION ?? DEFAULT_KUBE_VERSION;
  const exact = exactKubeVersion(raw);
  if (!exact)
    throw new UsageError(`${name}: --kube-version ${JSON.stringify(raw)} is not an exact version`, {
      hint: 'write it like v1.37.1: kubectl and client-go are taken at that release',
    });
  return exact;
}
