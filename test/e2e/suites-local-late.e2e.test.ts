// The e2e table's local leg for the suites that need a late build other than
// an older kubelet (the vendor plugins, awscli, oci-cli, the field clients'
// probes: src/cli/test-builds.ts names them), which scripts/test.sh runs once
// those builds are done. The older kubelets' suites are in
// suites-local-skew.e2e.test.ts, the others in suites-local.e2e.test.ts.
import { LOCAL_LATE } from '../../src/cli/test-builds.ts';
import { localLeg } from './suites-local-leg.ts';

await localLeg(LOCAL_LATE);
