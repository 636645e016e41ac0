// The cache suite's checks: how the kubelet caches what a credential provider
// answers (cacheKeyType, cacheDuration, expiry, rotation, singleflight). Every
// case states the cache model's prediction (src/model/credential-cache.ts)
// before its pods run; the real kubelet then agrees or not.
import type { Check } from '../../src/run/kit.ts';

const PLUGIN_GO = 'pkg/credentialprovider/plugin/plugin.go (v1.37.1)';

export const KEY_IMAGE: Check = {
  id: 'CACHE-KEY-IMAGE',
  title:
    'cacheKeyType Image: the same image again is served from the cache; ' +
    'another image on the same registry and an image on another registry exec the plugin again',
  level: 'MUST',
  source:
    `KEP-2133: cacheKeyType Image caches per image; ${PLUGIN_GO}: provide() stores under the request image, ` +
    'getCachedCredentials() looks up image → registry → <global>',
};

export const KEY_REGISTRY: Check = {
  id: 'CACHE-KEY-REGISTRY',
  title:
    'cacheKeyType Registry: the same image and another image on the same registry are served from the cache; ' +
    'an image on another registry execs the plugin again',
  level: 'MUST',
  source: `KEP-2133: cacheKeyType Registry caches per registry host[:port]; ${PLUGIN_GO}: parseRegistry(image) is the key`,
};

export const KEY_GLOBAL: Check = {
  id: 'CACHE-KEY-GLOBAL',
  title: 'cacheKeyType Global: every later image the provider matches, on any registry, is served from the cache',
  level: 'MUST',
  source: `KEP-2133: cacheKeyType Global caches for every image the provider matches; ${PLUGIN_GO}: globalCacheKey "<global>"`,
};

export const DURATION_DEFAULT: Check = {
  id: 'CACHE-DURATION-DEFAULT',
  title:
    "A response without cacheDuration is cached for the provider's defaultCacheDuration: a hit within it, an exec after it",
  level: 'MUST',
  source:
    "KEP-2133: cacheDuration is optional, the provider's defaultCacheDuration applies when it is unset; " +
    `${PLUGIN_GO}: response.CacheDuration == nil → p.defaultCacheDuration`,
};

export const DURATION_ZERO_RESPONSE: Check = {
  id: 'CACHE-DURATION-ZERO-RESPONSE',
  title:
    'cacheDuration 0s in the response means "do not cache", even with a long defaultCacheDuration: every pull execs the plugin',
  level: 'MUST',
  source:
    'KEP-2133: a cacheDuration of 0 means the credentials are not cached; ' +
    `${PLUGIN_GO}: CacheDuration != nil && Duration == 0 → return without storing`,
};

export const DURATION_ZERO_DEFAULT: Check = {
  id: 'CACHE-DURATION-ZERO-DEFAULT',
  title: 'defaultCacheDuration 0s and no cacheDuration in the response: nothing is cached, every pull execs the plugin',
  level: 'MUST',
  source:
    'KEP-2133: defaultCacheDuration applies when the response sets none; ' +
    `${PLUGIN_GO}: CacheDuration == nil && defaultCacheDuration == 0 → return without storing`,
};

export const EXPIRY: Check = {
  id: 'CACHE-EXPIRY',
  title:
    "The response's cacheDuration (not the provider's longer default) bounds the entry: " +
    'a hit within it, an exec once it has passed',
  level: 'MUST',
  source:
    `KEP-2133: credentials are cached for cacheDuration; ${PLUGIN_GO}: expiresAt = now + response.CacheDuration, ` +
    'cacheExpirationPolicy drops the entry once now is after it',
};

export const ROTATION: Check = {
  id: 'CACHE-ROTATION-RECOVERY',
  title:
    'After a registry password rotation, pulls fail while the kubelet holds the old credentials ' +
    'and recover once the entry expires and the plugin hands out the new ones',
  level: 'SHOULD',
  source:
    'KEP-2133: the kubelet reuses cached credentials until cacheDuration passes (a failed pull does not evict them); ' +
    `${PLUGIN_GO}: getCachedCredentials() before exec, lazy expiry`,
};

export const SINGLEFLIGHT: Check = {
  id: 'CACHE-SINGLEFLIGHT',
  title:
    'Concurrent pulls of one image share one plugin exec (singleflight), even with cacheDuration 0s and serializeImagePulls: true',
  level: 'SHOULD',
  source:
    `${PLUGIN_GO}: p.group.Do(image, ExecPlugin) (singleflight keyed by image in non-token mode); ` +
    'pkg/kubelet/images/image_manager.go: EnsureImageExists looks up credentials before handing the pull to the (serial) puller',
};

export const CACHE_CHECKS = [
  KEY_IMAGE,
  KEY_REGISTRY,
  KEY_GLOBAL,
  DURATION_DEFAULT,
  DURATION_ZERO_RESPONSE,
  DURATION_ZERO_DEFAULT,
  EXPIRY,
  ROTATION,
  SINGLEFLIGHT,
];
