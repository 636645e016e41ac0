// Certifies the real kubelogin (int128/kubelogin, unmodified, built from the Go
// module proxy) as a client-go exec credential plugin: `credprov certify
// exec-plugin` on a kubeconfig whose users exec `kubectl-oidc_login get-token`
// with the password grant against credprov's OIDC issuer and token endpoint
// (on a loopback address of a throwaway environment name), in v1 and v1beta1.
// With --live it then runs the suite vendor-kubelogin (local cluster
// CREDPROV_ENV_NAME, default 'default', brought up and down).
// Run: node scripts/certify-kubelogin.ts [--report-dir DIR] [--live]
// Exit code: the worst of the runs (0: every MUST check passed).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureTokenWebhookFiles } from '../src/authn/webhook-files.ts';
import { main } from '../src/cli/main.ts';
import { onInterrupt } from '../src/cli/signals.ts';
import { stderrProgress } from '../src/core/progress.ts';
import { KUBELOGIN_CERTIFY_USERS, writeKubeloginCertifyKubeconfig } from '../src/vendor-labs/kubelogin-certify.ts';
import { startKubeloginLab, type KubeloginLab } from '../src/vendor-labs/kubelogin-lab.ts';

const { values } = parseArgs({
  options: { 'report-dir': { type: 'string' }, live: { type: 'boolean', default: false } },
});
const reportDir = values['report-dir'] ? resolve(values['report-dir']) : undefined;
const work = await mkdtemp(join(tmpdir(), 'credprov-certify-kubelogin-'));
let lab: KubeloginLab | undefined;
const cleanup = async () => {
  await lab?.stop();
  lab = undefined;
  await rm(work, { recursive: true, force: true });
};
const release = onInterrupt(cleanup);
const codes: number[] = [];
try {
  // The issuer's address, CA and certificate, kept in the throwaway dir: no environment is involved.
  const files = await ensureTokenWebhookFiles(`certify-kubelogin-${process.pid}`, {
    CREDPROV_STATE_DIR: join(work, 'state'),
  });
  // The certify report redacts with its own redactor; the lab's secrets only ever sit in the kubeconfig (removed after).
  lab = await startKubeloginLab({ dir: join(work, 'lab'), files, onSecret: () => {}, progress: stderrProgress() });
  const kubeconfig = await writeKubeloginCertifyKubeconfig(lab, join(work, 'lab'));
  for (const [sub, user] of Object.entries(KUBELOGIN_CERTIFY_USERS)) {
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
  await cleanup();
  release();
  if (values.live) {
    const argv = [
      'run',
      '--suite',
      'vendor-kubelogin',
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
