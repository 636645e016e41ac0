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
import { runCertifyScript } from '../src/vendor-labs/certify-script.ts';
import { gcpCertifyArgv, startGcpCertifyLab } from '../src/vendor-labs/gcp-certify.ts';

await runCertifyScript({ name: 'gcp', start: startGcpCertifyLab, argv: gcpCertifyArgv });
