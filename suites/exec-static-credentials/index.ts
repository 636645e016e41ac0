// The exec-static-credentials suite: a kubeconfig user with an exec plugin
// and, beside it, a static credential (token, tokenFile, basic auth, kubectl's
// --token), through the four real clients against the environment's real API
// server: who runs the plugin, and whose credential is sent? Issue 30 item 6
// (k/k #87369, #102175). No kubelet is involved: no capability needed.
import { randomBytes } from 'node:crypto';
import { clientProbes, runCases, type PreparedSuite, type Suite } from '../../src/run/kit.ts';
import { STATIC_CLIENTS } from '../../src/model/exec-static-credentials.ts';
import { clientCase } from './cases.ts';
import { XSC_CHECKS } from './checks.ts';
import { makeFixture, type Fixture } from './fixture.ts';

export const execStaticCredentialsSuite: Suite = {
  name: 'exec-static-credentials',
  summary:
    'a token, tokenFile, basic auth or --token beside an exec user, through kubectl, client-go, client-node and Python: who runs the plugin, whose credential the API server sees',
  checks: XSC_CHECKS,
  optIn: 'a field path for release qualification (issue 30): client behaviour, the same on every cluster version',
  async prepare(): Promise<PreparedSuite> {
    return {
      spec: {},
      async run(run) {
        let fixture: Promise<Fixture> | undefined;
        const once = () => (fixture ??= makeFixture(run, randomBytes(3).toString('hex')));
        let probes: ReturnType<typeof clientProbes> | undefined;
        const probesOnce = () => (probes ??= clientProbes(run));
        return runCases(
          run,
          STATIC_CLIENTS.map((c) => clientCase(c, once, probesOnce)),
          { concurrency: 2 },
        );
      },
    };
  },
};
