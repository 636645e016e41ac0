// Certifies the real acr-credential-provider (kubernetes-sigs/cloud-provider-azure,
// unmodified, built from the Go module proxy) with `credprov certify
// kubelet-plugin --verify-pull`, with a static service principal (no network) and a
// local registry standing in for <name>.azurecr.io. --image adds images (e.g. mcr.microsoft.com/x, which upstream matches).
// With --live it also runs the plugin under the local cluster's kubelet
// (CREDPROV_ENV_NAME, default 'default').
// Run: node scripts/certify-acr.ts [--report-dir DIR] [--live] [--image REF]...
// Exit code: that of credprov certify (0 every MUST check passed).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../src/cli/main.ts';
import { stderrProgress } from '../src/core/progress.ts';
import { acrCertifyArgv, startAcrCertifyLab } from '../src/vendor-labs/acr-lab.ts';

const { values } = parseArgs({
  options: {
    'report-dir': { type: 'string' },
    live: { type: 'boolean', default: false },
    image: { type: 'string', multiple: true, default: [] },
  },
});
const work = await mkdtemp(join(tmpdir(), 'credprov-certify-acr-'));
const lab = await startAcrCertifyLab({ dir: work, progress: stderrProgress() });
let code: number;
try {
  const argv = [
    ...acrCertifyArgv(lab, values.image),
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
