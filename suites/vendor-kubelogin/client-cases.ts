// The JWT row of the client matrix: every real client credprov knows
// (kubectl, client-go, @kubernetes/client-node, the Python client; probes in
// src/clients) runs `kubectl oidc-login get-token` (password grant, a cache dir
// of its own, so each logs in once) and GETs discovery with the id_token it
// printed. Predicted like the kubectl cases (predict.ts); the username is not
// in a discovery answer, so the comparison is the status, the token-endpoint
// requests and which token the plugin printed.
import { join } from 'node:path';
import { writeProbeKubeconfig } from '../../src/clients/kubeconfig.ts';
import type { ProbeAvailability } from '../../src/clients/index.ts';
import type { ClientName } from '../../src/clients/probe.ts';
import { errorMessage } from '../../src/core/errors.ts';
import { readExecRuns } from '../../src/plugin/exec-recording-wrapper.ts';
import { caseOf, type Case } from '../../src/run/cases.ts';
import { judge } from '../../src/run/prediction.ts';
import { harnessFailed, notRun } from '../../src/run/results.ts';
import { predictFor } from './cases.ts';
import { failureOf, printedOf } from './observe.ts';
import { CLIENT_CHECKS } from './checks.ts';
import { CLIENT_PATH, KUBECTL_TIMEOUT_MS, USERS } from './plan.ts';
import { runEvidence, tokenCall, type Attempt, type Session } from './session.ts';

export const clientCase = (s: Session, client: ClientName, probe: ProbeAvailability | undefined): Case => {
  const check = CLIENT_CHECKS[client];
  return caseOf(check, async () => {
    const startedAt = new Date();
    if (!probe?.availability.ok)
      return notRun(
        check,
        `${client} is not available here: ${probe && !probe.availability.ok ? probe.availability.reason : 'no probe'}`,
        s.run.ci,
      );
    const exec = s.lab.execFor({ ...USERS.password, cacheDir: join(s.dir, 'cache', `client-${client}`) });
    const kubeconfig = await writeProbeKubeconfig(join(s.dir, `client-${client}.kubeconfig.json`), {
      server: s.cluster.server,
      caPem: s.cluster.caPem,
      exec,
      resolvedCommand: exec.command,
      names: { user: `kubelogin-${client}` },
    });
    const full = predictFor(s, 'password', Date.now(), undefined, 200);
    const { username: _, ...value } = full.value;
    const prediction = { ...full, value };
    const runsBefore = (await readExecRuns(s.lab.runsDir)).length;
    const tokenBefore = s.lab.issuer.tokenEndpoint!.requests().length;
    const session = await probe.probe.start(
      { kubeconfig },
      { timeoutMs: KUBECTL_TIMEOUT_MS, redactor: s.run.redactor },
    );
    let response;
    try {
      response = await session.request(CLIENT_PATH);
    } catch (err) {
      return harnessFailed(check, `harness error running ${client}: ${errorMessage(err)}`, [], startedAt);
    } finally {
      await session.close();
    }
    const runs = (await readExecRuns(s.lab.runsDir)).slice(runsBefore);
    const a: Attempt = {
      exitCode: 0,
      stdout: '',
      runs,
      tokenRequests: s.lab.issuer.tokenEndpoint!.requests().slice(tokenBefore),
      discoveries: 0,
      ...(response.status !== undefined ? { status: response.status } : {}),
    };
    const pluginFailed = runs.length > 0 && runs.every((r) => r.exitCode !== 0);
    const failure = failureOf(runs);
    return judge<{ status: number | string; tokenCalls: string[]; prints: string; failure?: string }>(check, {
      prediction,
      observed: {
        ...(failure ? { failure } : {}),
        status: response.status ?? (pluginFailed ? 'no request' : -1),
        tokenCalls: a.tokenRequests.map(tokenCall),
        prints: printedOf(a),
      },
      actor: `${client} (${probe.availability.version}) → kubectl oidc-login get-token → kube-apiserver`,
      startedAt,
      show: (v) => `${v.status}; token endpoint [${v.tokenCalls.join(', ') || 'none'}]; printed ${v.prints}`,
      evidence: [
        {
          kind: 'data',
          label: `${client} GET ${CLIENT_PATH}`,
          data: { ...response, ...(response.error ? { error: s.run.redactor.text(response.error) } : {}) },
        },
        { kind: 'invocation', label: 'plugin runs (recording wrapper)', data: runs.map(runEvidence) },
        { kind: 'data', label: 'token endpoint requests (tokens as fingerprints)', data: a.tokenRequests },
        { kind: 'text', label: `${client} log`, text: s.run.redactor.text(session.log()).slice(-4000) },
      ],
    });
  });
};
