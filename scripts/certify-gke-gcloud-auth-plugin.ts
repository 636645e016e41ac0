// Certifies the real gke-gcloud-auth-plugin (kubernetes/cloud-provider-gcp,
// unmodified, built from the Go module proxy) as a client-go exec credential
// plugin: `credprov certify exec-plugin` on a kubeconfig whose user execs
// `gke-gcloud-auth-plugin --use_application_default_credentials` with a
// service-account key file whose token_uri is the fake Google token endpoint
// on loopback (src/vendor-labs/gke-lab.ts). No Google account, no cluster.
// With --live it then runs the suite vendor-gke (local cluster CREDPROV_ENV_NAME,
// default 'default', brought up and down).
// Run: node scripts/certify-gke-gcloud-auth-plugin.ts [--report-dir DIR] [--live]
// Exit code: the worst of the runs (0: every MUST check passed).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../src/cli/main.ts';
import { onInterrupt } from '../src/cli/signals.ts';
import { stderrProgress } from '../src/core/progress.ts';
import { GKE_CERTIFY_USERS, startGkeLab, writeGkeCertifyKubeconfig, type GkeLab } from '../src/vendor-labs/gke-lab.ts';

const { values } = parseArgs({
  options: { 'report-dir': { type: 'string' }, live: { type: 'boolean', default: false } },
});
const reportDir = values['report-dir'] ? resolve(values['report-dir']) : undefined;
const work = await mkdtemp(join(tmpdir(), 'credprov-certify-gke-'));
let lab: GkeLab | undefined;
const cleanup = async () => {
  await lab?.stop();
  lab = undefined;
  await rm(work, { recursive: true, force: true });
};
const release = onInterrupt(cleanup);
const codes: number[] = [];
try {
  lab = await startGkeLab({ dir: join(work, 'lab'), progress: stderrProgress() });
  const kubeconfig = await writeGkeCertifyKubeconfig(lab, join(work, 'kubeconfig'));
  // GKE's own kubeconfig (v1beta1), then v1: the plugin answers v1beta1 whatever it is asked (cred.go:191-195).
  for (const [sub, user] of Object.entries(GKE_CERTIFY_USERS)) {
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
  const grants = lab.fake.requests();
  process.stderr.write(
    `fake token endpoint: ${grants.length} grants, ${grants.filter((g) => g.status === 200).length} answered 200\n`,
  );
  // The live run makes its own lab and handles Ctrl-C itself (tearing its environment down): hand over.
  await cleanup();
  release();
  if (values.live) {
    const live = ['run', '--suite', 'vendor-gke', ...(reportDir ? ['--report-dir', join(reportDir, 'live')] : [])];
    process.stderr.write(`credprov ${live.join(' ')}\n`);
    codes.push(await main(live));
  }
} finally {
  release();
  await cleanup();
}
process.exit(codes.length ? Math.max(...codes) : 3);
