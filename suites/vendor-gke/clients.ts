// The client matrix: each real client (kubectl, client-go, client-node,
// python) runs the plugin for an account of its own (so the sessions run side
// by side), makes a request, sees the account's tokens revoked server-side,
// and makes two more once kube-apiserver's success cache has passed. Judged
// against the exec client model at the planned times, and replayed at the
// times the steps really ran: a slipped schedule is no verdict on the client.
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import type { ExecConfig } from '../../src/api/exec/types.ts';
import { clientCheck } from './checks.ts';
import { CLIENT_SESSION, KUBECTL_TIMEOUT_MS, plannedTimes, PROBE_PATH } from './plan.ts';
import { CLIENT_MODEL, predictClientSession, type SessionView } from './predict.ts';
import { grantsSince, reducedAnswer } from './session.ts';
import {
  answerOf,
  caseOf,
  clientLogEvidence,
  clientNotRun,
  judge,
  readExecRuns,
  runsDuring,
  startClientSession,
  stepTimes,
  type Case,
  type ClientName,
  type ClusterView,
  type GkeLab,
  type ProbeAvailability,
} from '../../src/run/kit.ts';

export function clientCase(
  client: ClientName,
  probe: ProbeAvailability | undefined,
  lab: GkeLab,
  cluster: ClusterView,
  dir: string,
): Case {
  const check = clientCheck(client);
  return caseOf(check, async (ctx) => {
    const unavailable = clientNotRun(check, client, probe, ctx.ci);
    if (unavailable) return unavailable;
    const planned = predictClientSession(client);
    const exec = (await lab.execFor(client, { label: `client-${client}` })) as unknown as ExecConfig;
    const grants = await grantsSince(lab, client);
    const session = await startClientSession(probe!.probe, {
      kubeconfig: join(dir, `${client}.kubeconfig.json`),
      cluster,
      exec,
      user: `gke-${client}`,
      timeoutMs: KUBECTL_TIMEOUT_MS,
      redactor: ctx.redactor,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
    });
    let ran: Awaited<ReturnType<typeof session.runSteps>>;
    try {
      ran = await session.runSteps(CLIENT_SESSION, {
        path: PROBE_PATH,
        revoke: () => lab.fake.revoke({ subject: lab.subjectOf(client) }),
        clock: ctx.clock,
      });
    } finally {
      await session.close();
    }
    const runs = await readExecRuns(lab.runsDir(`client-${client}`));
    for (const r of runs) ctx.redactor.add(answerOf(r).token);
    const { during, outside } = runsDuring(ran.steps, ran.startedAt, runs, (r) => r.startMs);
    const steps = ran.steps.map((x, i) => ({ ...x, runs: during[i]!.length }));
    const granted = await grants.added();
    const observed: SessionView = {
      requests: steps.filter((x) => x.do === 'request').map((x) => `${x.response?.status ?? 'error'}/${x.runs}`),
      tokenRequests: granted.length,
    };
    const replayed = predictClientSession(
      client,
      steps.map((x) => x.at),
    );
    const show = (v: SessionView) => `${v.requests.join(' → ')} (${v.tokenRequests} grants)`;
    return judge(
      { ...check, cell: { ...check.cell!, text: observed.requests.join(' ') } },
      {
        prediction: { value: planned.view, model: CLIENT_MODEL, because: planned.because.join('; ') },
        observed,
        actor: client,
        show,
        invalidBecause: isDeepStrictEqual(replayed.view, planned.view)
          ? undefined
          : `the schedule slipped: at the times the steps ran (${stepTimes(steps)}) the model predicts ${show(replayed.view)}; no verdict on ${client}`,
        problems: outside.length ? [`${outside.length} plugin run(s) outside every request`] : [],
        evidence: [
          { kind: 'data', label: `${client} session (planned times ${plannedTimes().join(', ')} ms)`, data: steps },
          {
            kind: 'invocation',
            label: 'plugin runs (recording wrapper)',
            data: runs.map((r) => ({ startMs: r.startMs, exitCode: r.exitCode, answer: reducedAnswer(r) })),
          },
          { kind: 'data', label: 'fake Google token endpoint requests', data: granted },
          ...clientLogEvidence(`${client} log`, session.log()),
        ],
      },
    );
  });
}
