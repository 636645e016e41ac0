// Certifies the real auth-provider-gcp (kubernetes/cloud-provider-gcp, unmodified,
// built from the Go module proxy) in its gcr flow with `credprov certify
// kubelet-plugin --verify-pull`, GKE's node provider entry as it is, against the
// fake GCE metadata server (metadata.google.internal mapped to it in /etc/hosts
// while the script runs) and two token-auth registries answering as gcr.io and
// us-docker.pkg.dev. With --live it also runs the plugin under the local
// cluster's kubelet (CREDPROV_ENV_NAME, default 'default'; the local provider:
// its kubelet resolves through the same /etc/hosts). Run under the host lock:
//   flock /tmp/credprov-e2e.lock node scripts/certify-gcp.ts [--report-dir DIR] [--live]
// Exit code: that of credprov certify (0 every MUST check passed).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../src/cli/main.ts';
import { stderrProgress } from '../src/core/progress.ts';
import { gcpCertifyArgv, startGcpCertifyLab } from '../src/vendor-labs/gcp-certify.ts';

const { values } = parseArgs({
  options: { 'report-dir': { type: 'string' }, live: { type: 'boolean', default: false } },
});
const work = await mkdtemp(join(tmpdir(), 'credprov-certify-gcp-'));
const lab = await startGcpCertifyLab({ dir: work, progress: stderrProgress() });
let code: number;
try {
  const argv = [
    ...gcpCertifyArgv(lab),
    ...(values.live ? ['--live'] : []),
    ...(values['report-dir'] ? ['--report-dir', resolve(values['report-dir'])] : []),
  ];
  process.stderr.write(`credprov ${argv.join(' ')}\n`);
  code = await main(argv);
} finally {
  await lab.stop();
  await rm(work, { recursive: true, force: true });
}
process.exit(code);
