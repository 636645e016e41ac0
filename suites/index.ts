// The suites `credprov run` knows, by name. The default list is what
// scripts/run.sh runs when no --suite is given.
import type { Suite } from '../src/run/kit.ts';
import { cacheSuite } from './cache/index.ts';
import { smokeSuite } from './smoke/index.ts';
import { matchingSuite } from './matching/index.ts';
import { pullSecretsSuite } from './pull-secrets/index.ts';
import { ensureSecretPulledImagesSuite } from './ensure-secret-pulled-images/index.ts';
import { serviceAccountTokenSuite } from './service-account-token/index.ts';
import { versionSkewSuite } from './version-skew/index.ts';
import { vendorEcrSuite } from './vendor-ecr/index.ts';
import { vendorAcrSuite } from './vendor-acr/index.ts';
import { vendorAwsIamAuthenticatorSuite } from './vendor-aws-iam-authenticator/index.ts';
import { vendorKubeloginSuite } from './vendor-kubelogin/index.ts';
import { downgradeSuite } from './downgrade/index.ts';
import { execPlugin401Suite } from './exec-plugin-401/index.ts';
import { vendorGkeSuite } from './vendor-gke/index.ts';
import { vendorGcpSuite } from './vendor-gcp/index.ts';
import { vendorAzureKubeloginSuite } from './vendor-azure-kubelogin/index.ts';
import { vendorOciSuite } from './vendor-oci/index.ts';
import { mirrorsSuite } from './mirrors/index.ts';
import { providerConfigDirectorySuite } from './provider-config-directory/index.ts';
import { kubercPolicySuite } from './kuberc-policy/index.ts';
import { imageVolumesSuite } from './image-volumes/index.ts';
import { serviceAccountRecreateSuite } from './service-account-recreate/index.ts';
import { execStaticCredentialsSuite } from './exec-static-credentials/index.ts';
import { preloadedImagesSuite } from './preloaded-images/index.ts';
import { parallelPullsSuite } from './parallel-pulls/index.ts';
import { pluginReplacementSuite } from './plugin-replacement/index.ts';

export const SUITES: Record<string, Suite> = {
  smoke: smokeSuite,
  cache: cacheSuite,
  matching: matchingSuite,
  'pull-secrets': pullSecretsSuite,
  'ensure-secret-pulled-images': ensureSecretPulledImagesSuite,
  'service-account-token': serviceAccountTokenSuite,
  'version-skew': versionSkewSuite,
  'vendor-ecr': vendorEcrSuite,
  'vendor-acr': vendorAcrSuite,
  'vendor-aws-iam-authenticator': vendorAwsIamAuthenticatorSuite,
  'vendor-kubelogin': vendorKubeloginSuite,
  downgrade: downgradeSuite,
  'exec-plugin-401': execPlugin401Suite,
  'vendor-gke': vendorGkeSuite,
  'vendor-gcp': vendorGcpSuite,
  'vendor-azure-kubelogin': vendorAzureKubeloginSuite,
  'vendor-oci': vendorOciSuite,
  mirrors: mirrorsSuite,
  'provider-config-directory': providerConfigDirectorySuite,
  'kuberc-policy': kubercPolicySuite,
  'image-volumes': imageVolumesSuite,
  'service-account-recreate': serviceAccountRecreateSuite,
  'exec-static-credentials': execStaticCredentialsSuite,
  'preloaded-images': preloadedImagesSuite,
  'parallel-pulls': parallelPullsSuite,
  'plugin-replacement': pluginReplacementSuite,
};

/** `credprov run` without --suite: every suite that needs nothing built beyond the default version and is not opt-in. */
export const DEFAULT_SUITES = Object.values(SUITES)
  .filter((s) => !s.needsBuild && !s.optIn)
  .map((s) => s.name);
