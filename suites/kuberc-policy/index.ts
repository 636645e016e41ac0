// The kuberc-policy suite: kubectl's credential-plugin policy (KEP-3104
// kuberc), on the real kubectl of each minor that has it, against the
// environment's real API server. No kubelet is involved: the suite needs no
// capability, and runs on whatever environment the run brings up.
import {
  clientProbes,
  ensureKubectl,
  runCases,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { kubercCases, type Kubectl } from './cases.ts';
import { otherClientsCase } from './clients.ts';
import { KUBERC_CHECKS } from './checks.ts';
import { KUBECTL_VERSIONS } from './plan.ts';

export const kubercPolicySuite: Suite = {
  name: 'kuberc-policy',
  summary:
    "kubectl 1.35-1.37's credential-plugin policy (kuberc): allow, deny, the entry field per minor, validation, LookPath and shadows, kubelogin's launcher form",
  checks: KUBERC_CHECKS,
  needsBuild:
    'kubectl 1.35 and 1.36 (built with the version-skew kubelets; or the suite builds them first, 2-4 min each)',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    // Each minor's kubectl from the cache, built first as a step of its own when it is not there.
    const kubectls: Kubectl[] = [];
    for (const v of KUBECTL_VERSIONS) kubectls.push(await ensureKubectl(ctx, v, 'the kuberc-policy suite'));
    return {
      spec: {},
      async run(run) {
        // The client-go probe is built against the cluster's client-go first (once, cached).
        const probes = clientProbes(run);
        return runCases(run, [...kubercCases(kubectls), otherClientsCase(() => probes)], { concurrency: 2 });
      },
    };
  },
};
