// The matching suite's checks: which providers the real kubelet execs for an
// image, in what order, and whether the pull then works, each compared with
// credprov's matching oracle (src/matching) and version table.
import type { Check } from '../../src/run/kit.ts';

const KEP = 'KEP-2133 (kubelet credential providers)';

export const HOST_GLOB: Check = {
  id: 'MATCH-HOST-GLOB',
  title:
    'A host glob matches within one DNS label: *.glob.match.test matches a.glob.match.test, *.*.glob.match.test matches a.b.glob.match.test',
  level: 'MUST',
  source: `${KEP}: matchImages host globs match per label (filepath.Match), pkg/credentialprovider URLsMatch`,
};

export const LABEL_COUNT: Check = {
  id: 'MATCH-LABEL-COUNT',
  title:
    'A pattern with another number of host labels never matches (glob.match.test and a.b.c.glob.match.test against *.glob.match.test)',
  level: 'MUST',
  source: `${KEP}: "the number of domain parts must match"`,
};

export const PORT: Check = {
  id: 'MATCH-PORT',
  title:
    'Ports must be equal as written: equal port matches, an absent or different port does not, and :443 is not the default',
  level: 'MUST',
  source: `${KEP}: port must match exactly; k/k #25435 (no default-port normalisation)`,
};

export const PATH_PREFIX: Check = {
  id: 'MATCH-PATH-PREFIX',
  title:
    'The path is a raw string prefix: reg/team matches reg/teamx/app, reg/team/ does not, and * in a path is literal',
  level: 'MUST',
  source: `${KEP}: "the image path must be a prefix of the target"; kind#4185 (a path glob never matches)`,
};

export const ORDER: Check = {
  id: 'MATCH-ORDER',
  title: "Every matching provider is exec'd, in config order from 1.33 (name order before)",
  level: 'MUST',
  source: `${KEP}; k/k PR #129669 (config order from 1.33); version table providerOrder`,
};

export const WRONG_AND_RIGHT: Check = {
  id: 'MATCH-WRONG-AND-RIGHT',
  title: 'A provider returning wrong credentials beside one returning right ones: the pull still succeeds',
  level: 'MUST',
  source: `${KEP}: providers' auth entries are combined; the kubelet tries each credential until a pull works (kuberuntime_image.go)`,
};

export const AUTH_KEY: Check = {
  id: 'MATCH-AUTH-KEY-COVERS-IMAGE',
  title:
    'Credentials under an auth key that does not cover the image are ignored silently: the plugin runs, the pull is anonymous and fails',
  level: 'MUST',
  source: `${KEP}: response auth keys use matchImages rules; keyring Lookup returns only matching entries`,
};

export const DOCKER_IO: Check = {
  id: 'MATCH-DOCKER-IO',
  title:
    'docker.io normalisation: nginx-style names become docker.io/library/…, index.docker.io becomes docker.io; a matchImages of index.docker.io never matches',
  level: 'MUST',
  source: `${KEP}: the request image is the normalised repository (ParseImageName); reference §3`,
};

export const DIGEST: Check = {
  id: 'MATCH-DIGEST',
  title: 'An image by digest is matched and requested as its repository without the digest, and pulls',
  level: 'MUST',
  source: `${KEP}: CredentialProviderRequest.image is the repository without tag or digest`,
};

export const MATCHING_CHECKS = [
  HOST_GLOB,
  LABEL_COUNT,
  PORT,
  PATH_PREFIX,
  ORDER,
  WRONG_AND_RIGHT,
  AUTH_KEY,
  DOCKER_IO,
  DIGEST,
];
