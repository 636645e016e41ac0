// The matching suite's plan, as data: one kubelet config with a provider per
// question (each a recording fake), the images each check pulls, and how the
// fakes answer. Everything is predicted from the matching oracle and the
// version table (src/run/live-matching.ts predictImage).
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import type { FakeAnswer, LiveCase } from '../../src/run/kit.ts';
import {
  AUTH_KEY,
  DIGEST,
  DOCKER_IO,
  HOST_GLOB,
  LABEL_COUNT,
  ORDER,
  PATH_PREFIX,
  PORT,
  WRONG_AND_RIGHT,
} from './checks.ts';

const provider = (name: string, ...matchImages: string[]) => ({
  name,
  matchImages,
  apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
  defaultCacheDuration: '0s',
});

export const MATCHING_CONFIG = {
  apiVersion: 'kubelet.config.k8s.io/v1',
  kind: 'CredentialProviderConfig',
  providers: [
    provider('glob-one-label', '*.glob.match.test'),
    provider('glob-two-labels', '*.*.glob.match.test'),
    provider('port-5000', 'port.match.test:5000'),
    provider('no-port', 'noport.match.test'),
    provider('path-team', 'path.match.test/team'),
    provider('path-team-slash', 'path.match.test/team/'),
    provider('path-glob', 'pathglob.match.test/*'),
    // Config order is not name order: from 1.33 the kubelet keeps config order.
    provider('zz-order', 'order.match.test'),
    provider('aa-order', 'order.match.test'),
    provider('creds-wrong', 'creds.match.test'),
    provider('creds-right', 'creds.match.test'),
    provider('authkey-elsewhere', 'authkey.match.test'),
    provider('dockerhub', 'docker.io'),
    provider('dockerhub-index', 'index.docker.io'),
    provider('dockerhub-library', 'docker.io/library'),
    provider('digest', 'digest.match.test'),
  ],
} as CredentialProviderConfig;

const img = (ref: string, byDigest = false) => ({ ref, ...(byDigest ? { byDigest } : {}) });

export const MATCHING_CASES: LiveCase[] = [
  { check: HOST_GLOB, images: [img('a.glob.match.test/app:v1'), img('a.b.glob.match.test/app:v1')] },
  { check: LABEL_COUNT, images: [img('glob.match.test/app:v1'), img('a.b.c.glob.match.test/app:v1')] },
  {
    check: PORT,
    images: [
      img('port.match.test:5000/app:v1'),
      img('port.match.test:5001/app:v1'),
      img('port.match.test/app:v1'),
      img('noport.match.test/app:v1'),
      img('noport.match.test:5000/app:v1'),
      img('noport.match.test:443/app:v1'),
    ],
  },
  {
    check: PATH_PREFIX,
    images: [
      img('path.match.test/team/app:v1'),
      img('path.match.test/teamx/app:v1'),
      img('path.match.test/other/app:v1'),
      img('pathglob.match.test/app:v1'),
    ],
  },
  { check: ORDER, images: [img('order.match.test/app:v1')] },
  { check: WRONG_AND_RIGHT, images: [img('creds.match.test/app:v1')] },
  { check: AUTH_KEY, images: [img('authkey.match.test/app:v1')] },
  { check: DOCKER_IO, images: [img('credprov-match-probe:v1'), img('index.docker.io/credprovtest/probe:v1')] },
  { check: DIGEST, images: [img('digest.match.test/app', true)] },
];

/** How the fakes answer: right credentials under {registry}, but for these two. */
export const MATCHING_ANSWERS: Record<string, FakeAnswer> = {
  'creds-wrong': { credentials: 'wrong' },
  'authkey-elsewhere': { credentials: 'right', authKey: 'elsewhere.match.test' },
};
