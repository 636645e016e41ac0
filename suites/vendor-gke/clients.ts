// The client matrix: each real client (kubectl, client-go, client-node,
// python) runs the plugin for an account of its own (so the sessions run side
// by side), makes a request, sees the account's tokens revoked server-side,
// and makes two more once kube-apiserver's success cache has passed. Judged
// against the exec client model at the planned times, and replayed at the
// times the steps really ran: a slipped schedule is no verdict on the client.
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import type { ExecConfig } from '../../src/api/exec/types.ts';
import type { ProbeAvailability } from '../../src/clients/index.ts';
import { writeProbeKubeconfig } from '../../src/clients/kubeconfig.ts';
import type { ClientName, ProbeResponse } from '../../src/clients/probe.ts';
import { readExecRuns, answerOf } from '../../src/plugin/exec-recording-wrapper.ts';
import type { GkeLab } from '../../src/vendor-labs/gke-lab.ts';
import { caseOf, judge, notRun, sleep, type Case } from '../../src/run/kit.ts';
import { clientCheck } from './checks.ts';
import { CLIENT_SESSION, KUBECTL_TIMEOUT_MS, plannedTimes, PROBE_PATH } from './plan.ts';
import { CLIENT_MODEL, predictClientSession, type SessionView } from './predict.ts';
import { reducedAnswer, type Cluster } from './session.ts';

interface Step {
  do: 'request' | 'revoke';
  at: number;
  ms: number;
  response?: ProbeResponse;
  runs: number;
}

export function clientCase(
  client: ClientName,
  probe: ProbeAvailability | undefined,
  lab: GkeLab,
  cluster: Cluster,
  dir: string,
): Case {
  const check = clientCheck(client);
  return caseOf(check, async (ctx) => {
    if (!probe?.availability.ok)
      return notRun(
        check,
        `${client} is not available here: ${probe && !probe.availability.ok ? probe.availability.reason : 'no probe'}`,
        ctx.ci,
      );
    const startedAt = new Date();
    const planned = predictClientSession(client);
    const exec = (await lab.execFor(client, { label: `client-${client}` })) as unknown as ExecConfig;
    const kubeconfig = await writeProbeKubeconfig(join(dir, `${client}.kubeconfig.json`), {
      server: cluster.server,
      caPem: cluster.caPem,
      exec,
      resolvedCommand: exec.command,
      names: { user: `gke-${client}` },
    });
    const kid = lab.keyIdOf(client);
    const grantsBefore = lab.fake.requests().length;
    const session = await probe.probe.start(
      { kubeconfig },
      {
        timeoutMs: KUBECTL_TIMEOUT_MS,
        redactor: ctx.redactor,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
      },
    );
    const steps: Step[] = [];
    let first: number | undefined;
    let lastEnd = Date.now();
    try {
      for (const s of CLIENT_SESSION) {
        const wait = lastEnd + s.afterMs - Date.now();
        if (wait > 0) await sleep(wait);
        const t0 = Date.now();
        first ??= t0;
        if (s.do === 'revoke') lab.fake.revoke({ subject: lab.subjectOf(client) });
        const response = s.do === 'request' ? await session.request(PROBE_PATH) : undefined;
        lastEnd = Date.now();
        steps.push({ do: s.do, at: t0 - first, ms: lastEnd - t0, runs: 0, ...(response ? { response } : {}) });
      }
    } finally {
      await session.close();
    }
    const clientLog = ctx.redactor.text(session.log());
    const runs = await readExecRuns(lab.runsDir(`client-${client}`));
    for (const r of runs) ctx.redactor.add(answerOf(r).token);
    let outside = 0;
    for (const r of runs) {
      const t = r.startMs - first!;
      const step = steps.find((x) => x.do === 'request' && t >= x.at - 5 && t <= x.at + x.ms + 5);
      if (step) step.runs++;
      else outside++;
    }
    const grants = lab.fake
      .requests()
      .slice(grantsBefore)
      .filter((g) => g.assertion?.header.kid === kid);
    const observed: SessionView = {
      requests: steps.filter((x) => x.do === 'request').map((x) => `${x.response?.status ?? 'error'}/${x.runs}`),
      tokenRequests: grants.length,
    };
    const replayed = predictClientSession(
      client,
      steps.map((x) => x.at),
    );
    const slipped = !isDeepStrictEqual(replayed.view, planned.view);
    const show = (v: SessionView) => `${v.requests.join(' → ')} (${v.tokenRequests} grants)`;
    return judge(
      { ...check, cell: { ...check.cell!, text: observed.requests.join(' ') } },
      {
        prediction: { value: planned.view, model: CLIENT_MODEL, because: planned.because.join('; ') },
        observed,
        actor: client,
        startedAt,
        show,
        invalidBecause: slipped
          ? `the schedule slipped: at the times the steps ran (${steps.map((x) => `+${(x.at / 1000).toFixed(1)}s`).join(', ')}) the model predicts ${show(replayed.view)}; no verdict on ${client}`
          : undefined,
        problems: outside ? [`${outside} plugin run(s) outside every request`] : [],
        evidence: [
          {
            kind: 'data',
            label: `${client} session (planned times ${plannedTimes().join(', ')} ms)`,
            data: steps.map((x) => ({ do: x.do, at: x.at, ms: x.ms, response: x.response, runs: x.runs })),
          },
          {
            kind: 'invocation',
            label: 'plugin runs (recording wrapper)',
            data: runs.map((r) => ({ startMs: r.startMs, exitCode: r.exitCode, answer: reducedAnswer(r) })),
          },
          { kind: 'data', label: 'fake Google token endpoint requests', data: grants },
          { kind: 'log', label: `${client} log`, text: clientLog.slice(-4000) },
        ],
      },
    );
  });
}
