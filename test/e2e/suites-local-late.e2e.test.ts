// The e2e table's local leg for the suites that need a late build (the older
// kubelets of version-skew, the vendor plugins and awscli: src/cli/test-builds.ts
// names them), which scripts/test.sh runs once those builds are done. The
// other suites are in suites-local.e2e.test.ts.
import { localLeg } from './suites-local-leg.ts';

await localLeg('late');
