// Certifies the real ecr-credential-provider (kubernetes/cloud-provider-aws,
// unmodified, built from the Go module proxy) with `credprov certify
// kubelet-plugin --verify-pull`, against the fake ECR API on loopback and a
// local registry standing in for <account>.dkr.ecr.<region>.amazonaws.com.
// With --live it also runs the plugin under the local cluster's kubelet
// (CREDPROV_ENV_NAME, default 'default').
// Run: node scripts/certify-ecr.ts [--report-dir DIR] [--live]
// Exit code: that of credprov certify (0 every MUST check passed).
import { kubeletCertifyArgv } from '../src/vendor-labs/certify-argv.ts';
import { runCertifyScript } from '../src/vendor-labs/certify-script.ts';
import { startEcrCertifyLab } from '../src/vendor-labs/ecr-lab.ts';

await runCertifyScript({
  name: 'ecr',
  start: startEcrCertifyLab,
  argv: (lab) => kubeletCertifyArgv({ ...lab, pluginPath: lab.plugin.path, registryFor: [lab.registryFor] }),
});
