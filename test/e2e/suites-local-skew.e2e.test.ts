// The e2e table's local leg for the suites that need an older kubelet or its
// kubectl (version-skew, kuberc-policy: src/cli/test-builds.ts names them),
// which scripts/test.sh runs once those builds, the last of the late stage,
// are done.
import { LOCAL_SKEW } from '../../src/cli/test-builds.ts';
import { localLeg } from './suites-local-leg.ts';

await localLeg(LOCAL_SKEW);
