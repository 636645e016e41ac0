// The smoke suite's checks: the smallest end-to-end proof that a kubelet uses
// a credential provider plugin at all.
import type { Check } from '../../src/run/kit.ts';

export const PRIVATE_PULL: Check = {
  id: 'SMOKE-PRIVATE-PULL-VIA-PROVIDER',
  title: 'A pod whose private image matches a provider pulls with the credentials the plugin returns and runs',
  level: 'MUST',
  source:
    'KEP-2133: the kubelet execs the provider whose matchImages match the image and uses the returned auth for the pull',
};

export const UNMATCHED_FAILS: Check = {
  id: 'SMOKE-UNMATCHED-IMAGE-FAILS',
  title: 'A pod whose private image no provider matches fails to pull (ErrImagePull / ImagePullBackOff)',
  level: 'MUST',
  source: 'KEP-2133: a provider is only used for images its matchImages match; other images get no credentials from it',
};

export const PLUGIN_REQUEST: Check = {
  id: 'SMOKE-PLUGIN-REQUEST',
  title:
    'The plugin is called once, for the matched image only, with a v1 CredentialProviderRequest naming the repository without tag and no token',
  level: 'MUST',
  source:
    'KEP-2133: CredentialProviderRequest {apiVersion, kind, image} on stdin; image is the repository without tag or digest; serviceAccountToken only with tokenAttributes (KEP-4412)',
};

export const CONFIG_LOADED: Check = {
  id: 'SMOKE-CONFIG-LOADED',
  title:
    'The kubelet loaded the provider config credprov wrote: kubelet_credential_provider_config_info{hash} equals the sha256 of its bytes (1.34+)',
  level: 'MUST',
  source:
    'k/k PR #133016: the kubelet publishes "sha256:<hex>" over the config file(s) it read (pkg/credentialprovider/plugin/config.go, metrics.go)',
};

export const SMOKE_CHECKS = [PRIVATE_PULL, UNMATCHED_FAILS, PLUGIN_REQUEST, CONFIG_LOADED];
