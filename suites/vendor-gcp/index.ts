// The vendor-gcp suite: the real auth-provider-gcp (kubernetes/cloud-provider-gcp,
// built unmodified from the Go module proxy), GKE's kubelet image credential
// provider, under the real kubelet:
// - fake GCE on loopback (src/fake-clouds/google/): the metadata server on port 80
//   of its own loopback address, which every node resolves metadata.google.internal
//   to (the plugin's URL is hard-coded: GCE_METADATA_HOST is not honoured), checking
//   Metadata-Flavor and refusing X-Forwarded-For as Google's does;
// - registries answering as gcr.io and Artifact Registry hosts, whose token
//   services accept `_token` with an unexpired access token the metadata server
//   minted, and a private registry for the dockercfg flows;
// - six provider entries of GKE's shape, each a recording wrapper in front of the
//   same binary (plan.ts).
// Every case predicts from the matching oracle, the plugin's model and the cache
// model (predict.ts) before its pods run. The cases run one at a time: each
// pod's window of execs, metadata requests and logins must be its own.
import { runCases, startGcpLab, type PreparedSuite, type Suite, type SuiteSetup } from '../../src/run/kit.ts';
import { cacheWithinTokenCase, outageCase, registryCacheCase } from './cache-cases.ts';
import { VENDOR_GCP_CHECKS } from './checks.ts';
import { dockercfgCase, dockercfgUrlCase } from './flow-cases.ts';
import {
  DOCKERCFG_OBJECT,
  dockercfgs,
  PROVIDER,
  providerConfig,
  REPOSITORIES,
  SERVED_BY,
  SERVICE_ACCOUNT,
  TOKEN_LIFETIME_S,
  TOKEN_REFRESH_BEFORE_S,
} from './plan.ts';
import { arCase, gcrCase, noCacheCase, unmatchedCase } from './pull-cases.ts';

export const vendorGcpSuite: Suite = {
  name: 'vendor-gcp',
  summary:
    "the real auth-provider-gcp (GKE's kubelet credential provider, unmodified) under the kubelet against a fake GCE metadata server: " +
    'gcr.io and Artifact Registry pulls with _token, its answer, cacheKeyType/cacheDuration from KUBE_SIDECAR_* against the token’s life, ' +
    'a metadata outage, the dockercfg and dockercfg-url flows',
  checks: VENDOR_GCP_CHECKS,
  needsBuild:
    'auth-provider-gcp from the Go module proxy (k8s.io/cloud-provider-gcp cmd/auth-provider-gcp; built into <cache>/plugins on first use, about 3 minutes cold)',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const lab = await startGcpLab(ctx, {
      providers: Object.values(PROVIDER),
      email: SERVICE_ACCOUNT,
      tokenLifetimeS: TOKEN_LIFETIME_S,
      refreshBeforeS: TOKEN_REFRESH_BEFORE_S,
      repositories: REPOSITORIES,
      dockercfgs,
      urlObject: DOCKERCFG_OBJECT,
    });
    const config = providerConfig();
    return {
      // pluginsReachHost: the metadata server's name and the storage endpoint, from inside every node.
      needs: ['installPlugins', 'hostRegistries', 'pluginsReachHost'],
      spec: { credentialProvider: { plugins: lab.plugins, config: config as unknown as Record<string, unknown> } },
      async run(run) {
        await lab.route(run, SERVED_BY);
        const cases = [
          gcrCase(lab),
          arCase(lab),
          noCacheCase(lab),
          unmatchedCase(lab),
          registryCacheCase(lab),
          cacheWithinTokenCase(lab),
          outageCase(lab),
          dockercfgCase(lab),
          dockercfgUrlCase(lab),
        ];
        return runCases(run, cases, { concurrency: 1 });
      },
    };
  },
};
