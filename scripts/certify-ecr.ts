// Certifies the real ecr-credential-provider (kubernetes/cloud-provider-aws,
// unmodified, built from the Go module proxy) with `credprov certify
// kubelet-plugin --verify-pull`, against the fake ECR API on loopback and a
// local registry standing in for <account>.dkr.ecr.<region>.amazonaws.com.
// With --live it also runs the plugin under the local cluster's kubelet
// (CREDPROV_ENV_NAME, default 'default').
// Run: node scripts/certify-ecr.ts [--report-dir DIR] [--live]
// Exit code: that of credprov certify (0 every MUST check passed).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../src/cli/main.ts';
import { stderrProgress } from '../src/core/progress.ts';
import { startEcrCertifyLab } from '../src/vendor-labs/ecr-lab.ts';

const { values } = parseArgs({
  options: { 'report-dir': { type: 'string' }, live: { type: 'boolean', default: false } },
});
const work = await mkdtemp(join(tmpdir(), 'credprov-certify-ecr-'));
const lab = await startEcrCertifyLab({ dir: work, progress: stderrProgress() });
let code: number;
try {
  const argv = [
    'certify',
    'kubelet-plugin',
    '--plugin',
    lab.plugin.path,
    '--config',
    lab.configFile,
    ...lab.images.flatMap((i) => ['--image', i]),
    '--verify-pull',
    '--verify-pull-ca',
    lab.caFile,
    '--registry-for',
    lab.registryFor,
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
