// Certifies the real aws-iam-authenticator (kubernetes-sigs, unmodified, built
// from the Go module proxy) as a client-go exec credential plugin: `credprov
// certify exec-plugin` on a kubeconfig whose users exec
// `aws-iam-authenticator token -i <cluster id>` with keys from a shared
// credentials profile, in upstream's v1beta1 form and in v1; then the same for
// awscli's `aws eks get-token --cluster-name <cluster id>` (PyPI, installed into
// the cache). Both presign locally, so certification needs no AWS and no cluster.
// With --live it then runs the suite vendor-aws-iam-authenticator: the same
// plugin through real kubectl against a live kube-apiserver whose token
// webhook is `aws-iam-authenticator server`, with STS faked on loopback
// (local cluster CREDPROV_ENV_NAME, default 'default', brought up and down).
// Run: node scripts/certify-aws-iam-authenticator.ts [--report-dir DIR] [--live]
// Exit code: the worst of the runs (0: every MUST check passed).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../src/cli/main.ts';
import { onInterrupt } from '../src/cli/signals.ts';
import { stderrProgress } from '../src/core/progress.ts';
import { ensureAwsCli } from '../src/plugin/vendors/aws-cli.ts';
import {
  CERTIFY_USERS,
  startIamAuthenticatorLab,
  writeCertifyKubeconfig,
  type IamAuthenticatorLab,
} from '../src/vendor-labs/iam-authenticator-lab.ts';

const { values } = parseArgs({
  options: { 'report-dir': { type: 'string' }, live: { type: 'boolean', default: false } },
});
const reportDir = values['report-dir'] ? resolve(values['report-dir']) : undefined;
const work = await mkdtemp(join(tmpdir(), 'credprov-certify-iam-'));
let lab: IamAuthenticatorLab | undefined;
const cleanup = async () => {
  await lab?.stop();
  lab = undefined;
  await rm(work, { recursive: true, force: true });
};
const release = onInterrupt(cleanup);
const codes: number[] = [];
try {
  const progress = stderrProgress();
  const awsCli = await ensureAwsCli({ progress });
  lab = await startIamAuthenticatorLab({ dir: join(work, 'lab'), progress, ...(awsCli ? { awsCli } : {}) });
  const kubeconfig = await writeCertifyKubeconfig(lab, join(work, 'kubeconfig'));
  for (const [sub, user] of Object.entries(CERTIFY_USERS)) {
    const argv = [
      'certify',
      'exec-plugin',
      '--kubeconfig',
      kubeconfig,
      '--user',
      user,
      ...(reportDir ? ['--report-dir', join(reportDir, sub)] : []),
    ];
    process.stderr.write(`credprov ${argv.join(' ')}\n`);
    codes.push(await main(argv));
  }
  // The live run makes its own lab and handles Ctrl-C itself (tearing its environment down): hand over.
  await cleanup();
  release();
  if (values.live) {
    const argv = [
      'run',
      '--suite',
      'vendor-aws-iam-authenticator',
      ...(reportDir ? ['--report-dir', join(reportDir, 'live')] : []),
    ];
    process.stderr.write(`credprov ${argv.join(' ')}\n`);
    codes.push(await main(argv));
  }
} finally {
  release();
  await cleanup();
}
process.exit(codes.length ? Math.max(...codes) : 3);
