// The parallel-pulls suite's checks: a kubelet that pulls in parallel
// (serializeImagePulls: false, maxParallelImagePulls) through a credential
// provider. Issue 30 item 2.
import type { Check } from '../../src/run/kit.ts';

export const EXECS_BOUNDED: Check = {
  id: 'PP-EXECS-BOUNDED',
  title:
    'Under parallel pulls, a burst of pods over images of one registry execs the plugin no more often than the cache model allows, every pod pulls, and the kubelet stays up',
  level: 'MUST',
  source:
    'KEP-2133 (singleflight per image, cacheKeyType Registry); images/image_manager.go EnsureImageExists looks credentials up before the puller (v1.37.1:277 vs 359)',
};

export const LIMIT_RESPECTED: Check = {
  id: 'PP-LIMIT-RESPECTED',
  title:
    'With serializeImagePulls: false and maxParallelImagePulls N, more than N distinct images pulled at once through a credential provider never have more than N pulls in flight at the registry (the plugin execs are not bounded by N)',
  level: 'SHOULD',
  source:
    'KEP-3673 (maxParallelImagePulls); images/puller.go parallelImagePuller (a channel of N tokens around the runtime PullImage, v1.37.1:55-74); image_manager.go looks credentials up before it (v1.37.1:283 vs 366)',
};

export const STRIPED_LOCKS: Check = {
  id: 'PP-STRIPED-LOCKS',
  title:
    'With maxParallelImagePulls above 31, a pull whose KEP-2535 lock index passes 31 leaves the kubelet running where it carries #138937, and exits it after one plugin exec where the version table says it does not (k/k #138935)',
  level: 'MUST',
  source:
    'KEP-3673 (any maxParallelImagePulls ≥ 1 is valid); k/k #138935, fixed by #138937 (pullmanager/locks.go); kuberuntime_manager.go v1.36.5:337-344',
};

export const PARALLEL_PULLS_CHECKS = [EXECS_BOUNDED, LIMIT_RESPECTED, STRIPED_LOCKS];
