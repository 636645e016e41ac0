// Certifies the real acr-credential-provider (kubernetes-sigs/cloud-provider-azure,
// unmodified, built from the Go module proxy) with `credprov certify
// kubelet-plugin --verify-pull`, with a static service principal (no network) and a
// local registry standing in for <name>.azurecr.io. --image adds images (e.g. mcr.microsoft.com/x, which upstream matches).
// With --live it also runs the plugin under the local cluster's kubelet
// (CREDPROV_ENV_NAME, default 'default').
// Run: node scripts/certify-acr.ts [--report-dir DIR] [--live] [--image REF]...
// Exit code: that of credprov certify (0 every MUST check passed).
import { runCertifyScript } from '../src/vendor-labs/certify-script.ts';
import { acrCertifyArgv, startAcrCertifyLab } from '../src/vendor-labs/acr-lab.ts';

await runCertifyScript({
  name: 'acr',
  start: startAcrCertifyLab,
  argv: (lab, values) => acrCertifyArgv(lab, values.image as string[]),
  options: { image: { type: 'string', multiple: true, default: [] } },
});
