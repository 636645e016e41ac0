// The service-account-recreate suite's checks: a ServiceAccount deleted and
// recreated under the same name (a new UID), or re-annotated, as the
// kubelet's credential cache (KEP-4412) and its KEP-2535 records see it.
import type { Check } from '../../src/run/kit.ts';

export const RECREATED_CACHE_MISS: Check = {
  id: 'SA-RECREATED-CACHE-MISS',
  title: "A recreated ServiceAccount (new UID) misses the kubelet's credential cache: the plugin is exec'd again",
  level: 'MUST',
  source: "KEP-4412: cache keys include the ServiceAccount's UID; plugin.go generateServiceAccountCacheKey",
};

export const RECREATED_TOKEN: Check = {
  id: 'SA-RECREATED-TOKEN',
  title: "The token the plugin gets after the recreate names the new ServiceAccount's UID",
  level: 'MUST',
  source: 'k/k #132802/#132803: TokenRequest carries the SA UID; the token manager keys its cache by it from 1.34',
};

export const RECREATED_REVERIFIED: Check = {
  id: 'ESPI-SA-RECREATED-REVERIFIED',
  title:
    'A recreated ServiceAccount is not the recorded one: its Never pod is refused, its IfNotPresent pod pulls and the record gains the new UID',
  level: 'MUST',
  source: 'KEP-2535: records name the ServiceAccount by namespace, name and UID (image_pull_manager.go)',
};

export const ANNOTATION_CACHE_MISS: Check = {
  id: 'SA-ANNOTATION-CACHE-MISS',
  title: "A changed value of a passed annotation misses the credential cache: the plugin is exec'd with the new value",
  level: 'MUST',
  source: 'KEP-4412: the annotations passed to the plugin are part of the cache key (plugin.go 453-495)',
};

export const ANNOTATION_NOT_REVERIFIED: Check = {
  id: 'ESPI-SA-ANNOTATION-NOT-REVERIFIED',
  title:
    "A re-annotated ServiceAccount (same UID) is still the recorded one: its Never pod runs without a pull, even when the plugin's new answer is refused by the registry",
  level: 'MUST',
  source: 'KEP-2535 record semantics: an SA is recorded by UID, never by annotation; credprov finding 23',
};

export const SAR_CHECKS = [
  RECREATED_CACHE_MISS,
  RECREATED_TOKEN,
  RECREATED_REVERIFIED,
  ANNOTATION_CACHE_MISS,
  ANNOTATION_NOT_REVERIFIED,
];
