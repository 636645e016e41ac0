// The kuberc-policy cases: per check, every run of the plan on the kubectl of
// each minor. A run writes its own files (the plugin, a shadow, the kubectl
// plugin, kubectl itself in the plugin's dir, a kubeconfig, the kuberc),
// predicts, then runs `kubectl auth whoami` against the real API server. The
// plugin answers a ServiceAccount token, so "authenticated as" is the API
// server's word that the plugin ran and its credential was used.
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  caseOf,
  clusterOf,
  judge,
  kubectlWithKuberc,
  type Case,
  type CaseContext,
  type Check,
  type Evidence,
  tokenFilePluginProgram,
} from '../../src/run/kit.ts';
import { DEFAULT_PATH_FAILS_OPEN, KUBECTL_CHECKS } from './checks.ts';
import { caseFixture } from './fixture.ts';
import { execOf, KUBECTL_PLUGIN, kubercDoc, PLUGIN, RUNS, runPath, type CaseDirs, type KubercRunPlan } from './plan.ts';
import { KUBERC_MODEL, predictRun, showOutcome, type KubercOutcome, type Ran } from './predict.ts';

export interface Kubectl {
  version: string;
  kubectl: string;
}

const KUBECTL_TIMEOUT_MS = 60_000;

export function kubercCases(kubectls: Kubectl[]): Case[] {
  return KUBECTL_CHECKS.map((check) => caseOf(check, (ctx) => runCheck(ctx, check, kubectls)));
}

async function runCheck(ctx: CaseContext, check: Check, kubectls: Kubectl[]) {
  const env = ctx.environment;
  const { token, user, root } = await caseFixture(ctx, 'kubectl');
  const predicted: Record<string, KubercOutcome> = {};
  const observed: Record<string, KubercOutcome> = {};
  const evidence: Evidence[] = [];
  const reasons: string[] = [];
  const cluster = await clusterOf(env);
  for (const [vi, k] of kubectls.entries())
    for (const [ri, r] of RUNS[check.id]!.entries()) {
      const key = `kubectl ${k.version}, ${r.label}`;
      const dir = join(root, `${vi}-${ri}`);
      const files = await writeRunFiles(dir, r, k, { token, server: cluster.server, caData: cluster.caData });
      const p = predictRun(k.version, r, files.dirs, { kubercPath: files.kuberc, user });
      predicted[key] = p.value;
      reasons.push(`${key}: ${p.because}`);
      const out = await kubectlWithKuberc(k.kubectl, {
        args: ['--kubeconfig', files.kubeconfig, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'],
        path: runPath(r, files.dirs),
        home: files.home,
        ...(r.where === 'explicit' ? { kuberc: files.kuberc } : {}),
        timeoutMs: KUBECTL_TIMEOUT_MS,
      });
      const ran = await whichRan(files.log, files.dirs);
      observed[key] = observe(out, ran, p.value.says);
      evidence.push({ kind: 'text', label: `${key}: kubectl exit ${out.exitCode}`, text: out.stderr || '(no stderr)' });
    }
  const failedOpen = Object.entries(observed).filter(
    ([, v]) => check.id === DEFAULT_PATH_FAILS_OPEN.id && v.result === 'authenticated' && v.says !== undefined,
  );
  return judge(check, {
    prediction: { value: predicted, model: KUBERC_MODEL, because: reasons.join(' | ') },
    observed,
    show: (v) =>
      Object.entries(v)
        .map(([key, o]) => `${key}: ${o.result}${o.ran !== 'nothing' ? ` (${o.ran})` : ''}`)
        .join('; '),
    actor: 'kubectl',
    evidence,
    onDisagree: Object.keys(predicted)
      .filter((key) => JSON.stringify(predicted[key]) !== JSON.stringify(observed[key]))
      .map((key) => `${key}: predicted ${showOutcome(predicted[key]!)}, kubectl ${showOutcome(observed[key]!)}`)
      .join('; '),
    problems: failedOpen.map(
      ([key, v]) =>
        `${key}: kubectl dropped the Allowlist and ran the plugin, saying only "${v.says}" (finding 17: a default kuberc that does not decode applies no policy)`,
    ),
  });
}

/** What kubectl did: authenticated (exit 0), refused (client-go's "getting credentials" error), or stopped. */
function observe(
  out: { exitCode: number; stdout: string; stderr: string },
  ran: Ran,
  predictedSays?: string,
): KubercOutcome {
  const says =
    predictedSays && out.stderr.includes(predictedSays)
      ? predictedSays
      : out.exitCode !== 0
        ? out.stderr.trim().split('\n').at(-1)
        : undefined;
  if (out.exitCode === 0) return { result: 'authenticated', ran, user: out.stdout.trim(), ...(says ? { says } : {}) };
  return {
    result: /getting credentials/.test(out.stderr) ? 'refused' : 'stops',
    ran,
    ...(says ? { says } : {}),
  };
}

/** The plugin copies append their own path to one log: the last line is the file that ran. */
async function whichRan(log: string, d: CaseDirs): Promise<Ran> {
  const lines = (await readFile(log, 'utf8').catch(() => '')).trim().split('\n').filter(Boolean);
  const last = lines.at(-1);
  if (!last) return 'nothing';
  if (last === join(d.shadowBin, PLUGIN)) return 'shadow';
  if (last === join(d.bin, KUBECTL_PLUGIN)) return 'kubectl plugin';
  return last.endsWith(`/${PLUGIN}`) ? 'plugin' : 'nothing';
}

async function writeRunFiles(
  dir: string,
  r: KubercRunPlan,
  k: Kubectl,
  c: { token: string; server: string; caData: string },
) {
  const dirs: CaseDirs = { bin: join(dir, 'bin'), shadowBin: join(dir, 'shadow'), systemPath: ['/usr/bin', '/bin'] };
  const home = join(dir, 'home');
  const log = join(dir, 'ran.log');
  const tokenFile = join(dir, 'token');
  for (const d of [dirs.bin, dirs.shadowBin, join(home, '.kube')]) await mkdir(d, { recursive: true, mode: 0o700 });
  await writeFile(tokenFile, c.token, { mode: 0o600 });
  // One program in three places: it logs which file ran, then answers the token.
  const plugin = tokenFilePluginProgram(log, tokenFile);
  for (const f of [join(dirs.bin, PLUGIN), join(dirs.shadowBin, PLUGIN), join(dirs.bin, KUBECTL_PLUGIN)])
    await writeFile(f, plugin, { mode: 0o700 });
  if (!r.shadow) await rm(join(dirs.shadowBin, PLUGIN));
  await symlink(k.kubectl, join(dirs.bin, 'kubectl'));
  const exec = execOf(r.exec, dirs);
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: c.server, 'certificate-authority-data': c.caData } }],
      users: [
        {
          name: 'u',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: exec.command,
              args: exec.args,
              interactiveMode: 'Never',
            },
          },
        },
      ],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
    { mode: 0o600 },
  );
  const kuberc = r.where === 'explicit' ? join(dir, 'kuberc.yaml') : join(home, '.kube', 'kuberc');
  const doc = { apiVersion: 'kubectl.config.k8s.io/v1beta1', kind: 'Preference', ...kubercDoc(r, dirs) };
  await writeFile(kuberc, JSON.stringify(doc), { mode: 0o600 });
  return { dirs, home, log, kubeconfig, kuberc };
}
