// The provider-config-directory suite's checks: --image-credential-provider-config
// naming a directory (kubernetes#131658, 1.34+), and the config hash metric.
import type { Check } from '../../src/run/kit.ts';

const DIRECTORY_SOURCE =
  'k/k PR #131658 (KEP-2133 follow-up): --image-credential-provider-config may name a directory; *.json, *.yaml and *.yml are read in lexical order and merged (pkg/credentialprovider/plugin/config.go readCredentialProviderConfig, v1.34.5+); v1.33 reads a file only';

export const MERGED_ORDER: Check = {
  id: 'CFGDIR-MERGED-ORDER',
  title:
    'A config directory is merged in lexical file order: both providers matching the image are exec’d in that order, and their credentials are tried in that order (on 1.33 the directory is refused)',
  level: 'MUST',
  source: `${DIRECTORY_SOURCE}; providers run in config order from 1.33 (k/k PR #129669), every matching one, and the pull tries their credentials in turn (pkg/credentialprovider/plugin/plugins.go, keyring.go)`,
};

export const CONFIG_HASH: Check = {
  id: 'CFGDIR-CONFIG-HASH',
  title:
    'The kubelet publishes kubelet_credential_provider_config_info{hash} equal to sha256 over the directory’s config files, in its order, each length-prefixed',
  level: 'MUST',
  source:
    'k/k PR #133016: readCredentialProviderConfig hashes every file it reads (uint64 big-endian length, then the bytes) and metrics.go publishes "sha256:<hex>" (1.34+)',
};

export const DUPLICATE_REFUSED: Check = {
  id: 'CFGDIR-DUPLICATE-NAME-REFUSED',
  title: 'A provider name declared in two files of the directory: the kubelet refuses to start, naming the duplicate',
  level: 'MUST',
  source: `${DIRECTORY_SOURCE}: "duplicate provider name %q found in configuration file(s)", then "Failed to register CRI auth plugins" and exit 1`,
};

export const EMPTY_REFUSED: Check = {
  id: 'CFGDIR-EMPTY-REFUSED',
  title: 'A directory with no *.json, *.yaml or *.yml file: the kubelet refuses to start',
  level: 'MUST',
  source: `${DIRECTORY_SOURCE}: "no configuration files found in directory %q", then "Failed to register CRI auth plugins" and exit 1`,
};

export const CFGDIR_CHECKS = [MERGED_ORDER, CONFIG_HASH, DUPLICATE_REFUSED, EMPTY_REFUSED];
