// The e2e table's local leg: every suite on a local cluster of its own (real
// etcd, kube-apiserver, containerd and kubelet), one after another, each torn
// down before the next comes up. One jest test per check (suite-table.ts).
// This file runs the suites that need only the early builds; those that need a
// late one run in suites-local-late.e2e.test.ts (vendor plugins, field clients)
// and suites-local-skew.e2e.test.ts (older kubelets), which scripts/test.sh
// runs once the builds they need are done.
import { LOCAL_EARLY, localLeg } from './suites-local-leg.ts';

await localLeg(LOCAL_EARLY);
