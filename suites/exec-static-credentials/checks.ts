// The exec-static-credentials suite's checks: a kubeconfig user with an exec
// plugin AND a static credential (token, tokenFile, basic auth, kubectl's
// --token), through each real client: does the plugin run, and whose
// credential reaches the API server? client-go (and so kubectl) is the
// reference: the static credential wins and the plugin never runs.
import type { Check } from '../../src/run/kit.ts';
import type { StaticClient } from '../../src/model/exec-static-credentials.ts';

const CLIENT_GO_SOURCE =
  'client-go plugin/pkg/client/auth/exec/exec.go UpdateTransportConfig (v0.37.1:313-322): nothing installed when the transport has a token, token file, basic auth or certificate; k/k #91745, #107410';

export const KUBECTL: Check = {
  id: 'XSC-KUBECTL',
  title:
    'kubectl: a token, tokenFile, basic auth or --token beside an exec user wins: the plugin never runs and that credential is sent',
  level: 'MUST',
  source: `${CLIENT_GO_SOURCE}; k/k test/cmd/authentication.sh (--token beside exec)`,
};

export const CLIENT_GO: Check = {
  id: 'XSC-CLIENT-GO',
  title: 'client-go: a token, tokenFile or basic auth beside an exec user wins: the plugin never runs',
  level: 'MUST',
  source: CLIENT_GO_SOURCE,
};

export const CLIENT_NODE: Check = {
  id: 'XSC-CLIENT-NODE',
  title:
    'client-node should treat a static credential beside an exec user as client-go does (the static credential sent, the plugin not run)',
  level: 'SHOULD',
  source:
    '@kubernetes/client-node 2.0.1 config.js applyAuthorizationHeader (611-633), config_types.js (88-128: `token-file`, not `tokenFile`); credprov finding 19',
};

export const PYTHON: Check = {
  id: 'XSC-PYTHON',
  title:
    'The Python client should treat a static credential beside an exec user as client-go does (the static credential sent, the plugin not run)',
  level: 'SHOULD',
  source:
    'kubernetes (Python) 37.0.2 kube_config.py _load_authentication (284-304: auth-provider, token, exec, basic, in that order), FileOrData (476-485: the file untrimmed); credprov finding 20',
};

export const CHECK_OF: Record<StaticClient, Check> = {
  kubectl: KUBECTL,
  'client-go': CLIENT_GO,
  'client-node': CLIENT_NODE,
  python: PYTHON,
};

export const XSC_CHECKS = [KUBECTL, CLIENT_GO, CLIENT_NODE, PYTHON];
