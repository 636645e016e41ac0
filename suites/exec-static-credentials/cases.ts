// One case per client: each row of plan.ts predicted (predict.ts), then run
// through the real client with a kubeconfig of one exec user and the row's
// static credential beside it. Observed: whether the fake plugin ran (its
// log), and whom the API server authenticated: kubectl's `auth whoami`, or,
// for the library clients, which identity's ConfigMap their GETs could read.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import {
  caseOf,
  clientLogEvidence,
  clientNotRun,
  defaultClientEnv,
  judge,
  probeKubeconfig,
  type Case,
  type CaseContext,
  type Evidence,
  type ProbeAvailability,
} from '../../src/run/kit.ts';
import type { StaticClient } from '../../src/model/exec-static-credentials.ts';
import { CHECK_OF } from './checks.ts';
import { writePlugin, type Fixture } from './fixture.ts';
import { configMapOf, IDENTITIES, REQUEST_TIMEOUT_MS, rowsOf, userOf, type Identity, type StaticRow } from './plan.ts';
import { differenceFromClientGo, MODEL, predictRow, showOutcome, type RowOutcome, type SeenAs } from './predict.ts';

const FINDING: Partial<Record<StaticClient, string>> = { 'client-node': 'finding 19', python: 'finding 20' };

export function clientCase(
  client: StaticClient,
  fixture: () => Promise<Fixture>,
  probes: () => Promise<Map<string, ProbeAvailability>>,
): Case {
  const check = CHECK_OF[client];
  return caseOf(check, async (ctx) => {
    const available = client === 'kubectl' ? undefined : (await probes()).get(client);
    if (client !== 'kubectl') {
      const missing = clientNotRun(check, client, available, ctx.ci);
      if (missing) return missing;
    }
    const f = await fixture();
    const predicted: Record<string, RowOutcome> = {};
    const observed: Record<string, RowOutcome> = {};
    const reasons: string[] = [];
    const evidence: Evidence[] = [];
    const problems: string[] = [];
    for (const [i, row] of rowsOf(client).entries()) {
      const p = predictRow(client, row);
      predicted[row.label] = p.value;
      reasons.push(p.because);
      const dir = `${client}-${i}`;
      const log = join(f.root, `${dir}.ran.log`);
      const plugin = join(f.root, `${dir}-plugin`);
      await writePlugin(f, plugin, log);
      const kubeconfig = await writeKubeconfig(f, row, plugin, join(f.root, `${dir}.kubeconfig`));
      const seen =
        client === 'kubectl'
          ? await viaKubectl(ctx, f, row, kubeconfig)
          : await viaProbe(ctx, f, available!, kubeconfig);
      const pluginRuns = (await readFile(log, 'utf8').catch(() => '')).trim() !== '';
      observed[row.label] = { pluginRuns, seenAs: seen.seenAs };
      evidence.push({ kind: 'data', label: `${client}, ${row.label}`, data: seen.data }, ...seen.logs);
      // The failure before sending must be the one predicted (Python's untrimmed token file), in the client's words.
      if (p.clientError && seen.seenAs === 'no request' && !(seen.error ?? '').includes(p.clientError))
        problems.push(
          `${row.label}: ${client} sent nothing, but not for the predicted "${p.clientError}…": ${seen.error}`,
        );
      const diff = differenceFromClientGo(client, row);
      if (diff && JSON.stringify(observed[row.label]) === JSON.stringify(p.value))
        problems.push(`${diff} (${FINDING[client]})`);
    }
    return judge(check, {
      prediction: { value: predicted, model: MODEL, because: reasons.join(' | ') },
      observed,
      show: (v) =>
        Object.entries(v)
          .map(([label, o]) => `${label}: ${showOutcome(o)}`)
          .join('; '),
      actor: client,
      evidence,
      problems,
      onDisagree: Object.keys(predicted)
        .filter((k) => JSON.stringify(predicted[k]) !== JSON.stringify(observed[k]))
        .map((k) => `${k}: predicted ${showOutcome(predicted[k]!)}, ${client} ${showOutcome(observed[k]!)}`)
        .join('; '),
    });
  });
}

async function writeKubeconfig(f: Fixture, row: StaticRow, plugin: string, path: string): Promise<string> {
  const doc = probeKubeconfig({
    server: f.cluster.server,
    caPem: f.cluster.caPem,
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: plugin,
      args: [],
      env: [],
      provideClusterInfo: false,
      interactiveMode: 'Never',
    },
    resolvedCommand: plugin,
    names: { user: 'xsc' },
  }) as { users: Array<{ user: { exec: Record<string, unknown> } }> };
  const user = doc.users[0]!;
  user.user = userOf(row, user.user.exec, {
    ...f,
    tokenFile: row.tokenFileNewline ? f.tokenFileNewline : f.tokenFile,
  }) as typeof user.user;
  await writeFile(path, JSON.stringify(doc), { mode: 0o600 });
  return path;
}

interface Seen {
  seenAs: SeenAs;
  /** The client's own error, redacted, when it failed before any answer. */
  error?: string;
  data: unknown;
  logs: Evidence[];
}

/** kubectl `auth whoami` (--token on its command line for that row), in an environment of PATH and HOME only. */
async function viaKubectl(ctx: CaseContext, f: Fixture, row: StaticRow, kubeconfig: string): Promise<Seen> {
  const args = ['--kubeconfig', kubeconfig, ...(row.static === 'cliToken' ? ['--token', f.tokens.cli] : [])];
  const r = await execa(
    ctx.environment.kubectl,
    [...args, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'],
    {
      reject: false,
      timeout: REQUEST_TIMEOUT_MS,
      extendEnv: false,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: f.root, KUBERC: 'off' },
    },
  );
  const user = String(r.stdout).trim();
  const stderr = ctx.redactor.text(String(r.stderr)).slice(-2000);
  const byName = (Object.keys(IDENTITIES) as Identity[]).find(
    (n) => user === `system:serviceaccount:${f.namespace}:${IDENTITIES[n]}`,
  );
  const seenAs: SeenAs =
    r.exitCode === 0
      ? (byName ?? 'unauthenticated')
      : // 401, or the 403 kubectl words as "the selfsubjectreviews API is not enabled … or you do not have permission".
        /Unauthorized|forbidden|do not have permission/i.test(stderr)
        ? 'unauthenticated'
        : 'no request';
  return {
    seenAs,
    ...(seenAs === 'no request' && stderr ? { error: stderr } : {}),
    data: { exitCode: r.exitCode, username: user || undefined, stderr: stderr || undefined },
    logs: [],
  };
}

/** One session of the client's probe: a GET of each identity's ConfigMap; the one it may read names who it is. */
async function viaProbe(ctx: CaseContext, f: Fixture, probe: ProbeAvailability, kubeconfig: string): Promise<Seen> {
  const session = await probe.probe.start(
    { kubeconfig },
    {
      timeoutMs: REQUEST_TIMEOUT_MS,
      redactor: ctx.redactor,
      env: { ...defaultClientEnv(process.env), HOME: f.root },
    },
  );
  const answers: Record<string, { status?: number; error?: string }> = {};
  try {
    for (const n of Object.keys(IDENTITIES) as Identity[]) {
      const r = await session.request(`/api/v1/namespaces/${f.namespace}/configmaps/${configMapOf(n)}`);
      answers[n] = {
        ...(r.status !== undefined ? { status: r.status } : {}),
        ...(r.error ? { error: ctx.redactor.text(r.error) } : {}),
      };
    }
  } finally {
    await session.close();
  }
  const read = Object.entries(answers).filter(([, a]) => a.status === 200);
  const seenAs: SeenAs =
    read.length === 1
      ? (read[0]![0] as Identity)
      : Object.values(answers).every((a) => a.status === undefined)
        ? 'no request'
        : 'unauthenticated';
  const error = Object.values(answers).find((a) => a.status === undefined && a.error)?.error;
  return {
    seenAs,
    ...(error ? { error } : {}),
    data: answers,
    logs: clientLogEvidence(`${probe.probe.name} log`, ctx.redactor.text(session.log())),
  };
}
