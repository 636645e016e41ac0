// The vendor-acr suite: the real acr-credential-provider (kubernetes-sigs/cloud-provider-azure,
// built unmodified from the Go module proxy) under the real kubelet.
//
// - Fake Azure on loopback (src/fake-clouds/azure/): the App Service managed
//   identity endpoint (IDENTITY_ENDPOINT/IDENTITY_HEADER); for the two login servers the plugin
//   calls, their /v2/ challenge and /oauth2/exchange, and Azure AD (login.microsoftonline.com,
//   entra-id.ts: client assertions verified against the cluster's JWKS), over https on 443
//   under their real names (login-server.ts: lab CA, one /etc/hosts line).
// - Two lab registries (htpasswd + TLS) stand in for ACR: `acr` accepts the service principal
//   and the exchanged refresh token (user 00000000-…); `other` accepts neither. A third, without
//   auth, stands in for the public mcr.microsoft.com. containerd routes the ACR-shaped hosts and
//   mcr.microsoft.com to them through hosts.toml.
// - Each provider name is a recording wrapper in front of the same binary.
//
// The lab is in lab.ts, the providers in plan.ts, the predictions in predict.ts. The cases run one at a
// time: each pod's window of plugin execs and Azure requests must be its own.
import { acrCases } from './cases.ts';
import { VENDOR_ACR_CHECKS } from './checks.ts';
import { startAcrLab } from './lab.ts';
import { openSession } from './session.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import {
  ACR_PLUGIN_VERSION,
  runCases,
  saTokenGates,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';

export const vendorAcrSuite: Suite = {
  name: 'vendor-acr',
  summary:
    'the real acr-credential-provider (cloud-provider-azure, unmodified) under the kubelet: static service principal, ' +
    'the empty "*.azurecr.*" entry, the 0s answer for non-ACR images, managed identity with the ACR token exchange ' +
    '(fake IDENTITY_ENDPOINT and login server on loopback), and KEP-4412 mode without managed identity',
  checks: VENDOR_ACR_CHECKS,
  needsBuild:
    `acr-credential-provider ${ACR_PLUGIN_VERSION} from the Go module proxy ` +
    '(sigs.k8s.io/cloud-provider-azure; built into <cache>/plugins on first use, about 4 minutes with a cold Go cache)',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const behaviour = behaviourFor(ctx.kubeVersion);
    const lab = await startAcrLab(ctx, behaviour);
    return {
      // pluginsReachHost: the managed-identity provider's env names the fake identity endpoint on this host's loopback.
      needs: ['installPlugins', 'hostRegistries', 'pluginsReachHost'],
      spec: {
        credentialProvider: { plugins: lab.plugins, config: lab.config as unknown as Record<string, unknown> },
        // The two KEP-4412 providers: on 1.33 the alpha gate is turned on (kubelet and API server), so the SA checks judge the real kubelet.
        featureGates: saTokenGates(behaviour),
      },
      async run(run) {
        const session = await openSession(run, lab);
        return runCases(run, await acrCases(session), { concurrency: 1 });
      },
    };
  },
};
