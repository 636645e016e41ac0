// The mirrors suite's checks: per case, a MUST that containerd sends what the
// hosts model predicts to whom, and a SHOULD that no login reaches a host
// other than the one it was issued for (the report names every crossing).
import type { Check } from '../../src/run/kit.ts';
import { CASES, type MirrorCase } from './plan.ts';

const HOSTS_SOURCE =
  'containerd v2.3.7 docs/hosts.md and core/remotes/docker (config/hosts.go: [host] entries in order, then server; resolver.go/fetcher.go: next host on 401/404/refused; authorizer.go: the credentials function per contacted host); internal/cri/server/images/image_pull.go ParseAuth: no ServerAddress from the kubelet, so every host gets the login';
const CROSSING_SOURCE =
  "KEP-2133: credentials are looked up for the image's registry; a login SHOULD reach only that registry (containerd#10540, containers/image#2949, cloud-provider-azure#6845, amazon-ecr-credential-helper#947)";

export function hostsCheck(c: MirrorCase): Check {
  return {
    id: `MIRRORS-${c.id}`,
    title: `${c.title}: the pull result, which registries see which login, and which providers are exec'd are what the containerd hosts model predicts`,
    level: 'MUST',
    source: HOSTS_SOURCE,
  };
}

export function crossingCheck(c: MirrorCase): Check {
  return {
    id: `MIRRORS-${c.id}-NO-CROSSING`,
    title: `${c.title}: no login reaches a registry other than the origin it was issued for`,
    level: 'SHOULD',
    source: CROSSING_SOURCE,
  };
}

export const MIRRORS_CHECKS: Check[] = CASES.flatMap((c) => [hostsCheck(c), crossingCheck(c)]);
