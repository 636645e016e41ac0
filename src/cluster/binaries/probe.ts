// What version a kube binary says it is. kubelet and kube-apiserver print
// "Kubernetes v1.37.1" for --version; kubectl has no --version and reports
// its client version as JSON; kubeadm prints the bare version for
// `version -o short` (kind reads it that way from a node image).
import { execa } from 'execa';
import { CommandError } from '../../core/errors.ts';

export async function reportedVersion(path: string, name: string): Promise<string> {
  const argv =
    name === 'kubectl'
      ? ['version', '--client', '-o', 'json']
      : name === 'kubeadm'
        ? ['version', '-o', 'short']
        : ['--version'];
  let r;
  try {
    r = await execa(path, argv, { reject: false, timeout: 30_000, env: { KUBECONFIG: '/dev/null' } });
  } catch (err) {
    throw new CommandError(`cannot run ${path}: ${(err as Error).message}`, { argv: [path, ...argv] });
  }
  const out = String(r.stdout);
  const version =
    name === 'kubectl'
      ? kubectlVersion(out)
      : name === 'kubeadm'
        ? /^(v\d+\.\d+\.\d+\S*)\s*$/.exec(out)?.[1]
        : /Kubernetes (v\S+)/.exec(out)?.[1];
  if (r.exitCode !== 0 || !version) {
    throw new CommandError(`${path} ${argv.join(' ')} did not report a version`, {
      argv: [path, ...argv],
      ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }),
      output: `${out}\n${String(r.stderr)}`,
    });
  }
  return version;
}

function kubectlVersion(out: string): string | undefined {
  try {
    return (JSON.parse(out) as { clientVersion?: { gitVersion?: string } }).clientVersion?.gitVersion;
  } catch {
    return undefined;
  }
}
