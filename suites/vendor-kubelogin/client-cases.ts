// The JWT row of the client matrix: every real client credprov knows
// (kubectl, client-go, @kubernetes/client-node, the Python client; probes in
// src/clients) runs `kubectl oidc-login get-token` (password grant, a cache dir
// of its own, so each logs in once) and GETs discovery with the id_token it
// printed. Predicted like the kubectl cases (predict.ts); the username is not
// in a discovery answer, so the comparison is the status, the token-endpoint
// requests and which token the plugin printed.
import { join } from 'node:path';
import { failureOf, printedOf } from './observe.ts';
import { CLIENT_CHECKS } from './checks.ts';
import { CLIENT_PATH, KUBECTL_TIMEOUT_MS, USERS } from './plan.ts';
import { predictFor } from './predict.ts';
import { runEvidence, tokenCall, type Attempt, type Session } from './session.ts';
import {
  caseOf,
  clientLogEvidence,
  clientNotRun,
  errorMessage,
  harnessFailed,
  judge,
  readExecRuns,
  since,
  startClientSession,
  type Case,
  type ClientName,
  type ProbeAvailability,
  type ProbeResponse,
} from '../../src/run/kit.ts';

type ClientCall = { status: number | string; tokenCalls: string[]; prints: string; failure?: string };

export const clientCase = (s: Session, client: ClientName, probe: ProbeAvailability | undefined): Case => {
  const check = CLIENT_CHECKS[client];
  return caseOf(check, async (ctx) => {
    const unavailable = clientNotRun(check, client, probe, s.run.ci);
    if (unavailable) return unavailable;
    const exec = s.lab.execFor({ ...USERS.password, cacheDir: join(s.dir, 'cache', `client-${client}`) });
    const full = predictFor(s, 'password', ctx.clock.now(), undefined, 200);
    const { username: _, ...value } = full.value;
    const prediction = { ...full, value };
    const runs = await since(() => readExecRuns(s.lab.runsDir));
    const tokenRequests = await since(() => s.lab.issuer.tokenEndpoint!.requests());
    const session = await startClientSession(probe!.probe, {
      kubeconfig: join(s.dir, `client-${client}.kubeconfig.json`),
      cluster: s.cluster,
      exec,
      user: `kubelogin-${client}`,
      timeoutMs: KUBECTL_TIMEOUT_MS,
      redactor: s.run.redactor,
    });
    let response: ProbeResponse;
    try {
      response = await session.request(CLIENT_PATH);
    } catch (err) {
      return harnessFailed(check, `harness error running ${client}: ${errorMessage(err)}`);
    } finally {
      await session.close();
    }
    const a: Attempt = {
      exitCode: 0,
      stdout: '',
      runs: await runs.added(),
      tokenRequests: await tokenRequests.added(),
      discoveries: 0,
      ...(response.status !== undefined ? { status: response.status } : {}),
    };
    const pluginFailed = a.runs.length > 0 && a.runs.every((r) => r.exitCode !== 0);
    const failure = failureOf(a.runs);
    return judge<ClientCall>(check, {
      prediction,
      observed: {
        ...(failure ? { failure } : {}),
        status: response.status ?? (pluginFailed ? 'no request' : -1),
        tokenCalls: a.tokenRequests.map(tokenCall),
        prints: printedOf(a),
      },
      actor: `${client} (${probe!.availability.ok ? probe!.availability.version : ''}) → kubectl oidc-login get-token → kube-apiserver`,
      show: (v) => `${v.status}; token endpoint [${v.tokenCalls.join(', ') || 'none'}]; printed ${v.prints}`,
      evidence: [
        {
          kind: 'data',
          label: `${client} GET ${CLIENT_PATH}`,
          data: { ...response, ...(response.error ? { error: s.run.redactor.text(response.error) } : {}) },
        },
        { kind: 'invocation', label: 'plugin runs (recording wrapper)', data: a.runs.map(runEvidence) },
        { kind: 'data', label: 'token endpoint requests (tokens as fingerprints)', data: a.tokenRequests },
        ...clientLogEvidence(`${client} log`, session.log(), 4000),
      ],
    });
  });
};
