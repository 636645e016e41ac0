// The e2e table's local leg: every suite on a local cluster of its own (real
// etcd, kube-apiserver, containerd and kubelet), one after another, each torn
// down before the next comes up. One jest test per check (suite-table.ts).
// This file runs the suites that need only the early builds; those that need a
// late one (older kubelets, vendor plugins) run in suites-local-late.e2e.test.ts,
// which scripts/test.sh runs once the late builds are done.
import { localLeg } from './suites-local-leg.ts';

await localLeg('early');
