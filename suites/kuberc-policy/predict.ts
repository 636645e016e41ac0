// What kubectl of a minor does with a run's kuberc and kubeconfig, from
// credprov's model (src/model/kuberc-policy.ts: loadKuberc, then
// enforcePolicy over the case's own PATH). Pure: the case's dirs and names
// come in as arguments.
import {
  clientEnforcesKuberc,
  enforcePolicy,
  loadKuberc,
  lookPath,
  type PathWorld,
} from '../../src/model/kuberc-policy.ts';
import type { Prediction } from '../../src/run/kit.ts';
import {
  execOf,
  kubectlPluginPath,
  kubercDoc,
  pluginPath,
  runPath,
  shadowPath,
  type CaseDirs,
  type KubercRunPlan,
} from './plan.ts';

/** Which of the case's programs ran as the credential plugin. */
export type Ran = 'plugin' | 'shadow' | 'kubectl plugin' | 'nothing';

export interface KubercOutcome {
  /** authenticated: the API server accepted the plugin's token; refused: the policy stopped the plugin; stops: kubectl refused the kuberc. */
  result: 'authenticated' | 'refused' | 'stops';
  ran: Ran;
  /** The user the API server saw (authenticated only). */
  user?: string;
  /** The decisive line kubectl prints (an error, or the warning that explains a pass), when there is one. */
  says?: string;
}

export const KUBERC_MODEL = 'kuberc policy (src/model/kuberc-policy.ts loadKuberc, enforcePolicy)';

/** The files of a run: the plugin, the kubectl plugin, kubectl itself in the plugin's dir, and the shadow when the run has one. */
export function worldOf(r: KubercRunPlan, d: CaseDirs): PathWorld {
  const files = [pluginPath(d), kubectlPluginPath(d), `${d.bin}/kubectl`, ...(r.shadow ? [shadowPath(d)] : [])];
  return { path: runPath(r, d), executables: new Set(files) };
}

export function predictRun(
  kubectlVersion: string,
  r: KubercRunPlan,
  d: CaseDirs,
  o: { kubercPath: string; user: string },
): Prediction<KubercOutcome> {
  const minor = Number(/^v?1\.(\d+)/.exec(kubectlVersion)?.[1]);
  const fill = (m: string): string => m.replaceAll('<kuberc>', o.kubercPath);
  const load = loadKuberc(minor, kubercDoc(r, d), r.where === 'explicit');
  const last = load.messages.at(-1);
  const wrap = (value: KubercOutcome, because: string): Prediction<KubercOutcome> => ({
    value,
    model: KUBERC_MODEL,
    because: `kubectl ${kubectlVersion}: ${because}`,
  });
  if (load.outcome === 'fatal') return wrap({ result: 'stops', ran: 'nothing', says: fill(last!) }, load.because);
  const policy = load.outcome === 'policy' ? load.policy! : { type: 'AllowAll' as const };
  const world = worldOf(r, d);
  const exec = execOf(r.exec, d);
  const run = enforcePolicy(policy, exec.command, world);
  if (!run.runs)
    return wrap({ result: 'refused', ran: 'nothing', says: run.error! }, `${load.because}; ${run.because}`);
  const ran: Ran =
    run.runs === shadowPath(d) ? 'shadow' : run.runs === pluginPath(d) ? 'plugin' : launcherRuns(world, exec.args);
  return wrap(
    {
      result: 'authenticated',
      ran,
      user: o.user,
      ...(load.outcome === 'no-policy' && last ? { says: fill(last) } : {}),
    },
    `${load.because}; ${run.because}${ran === 'kubectl plugin' ? `; the inner kubectl runs ${kubectlPluginPath(d)} (no policy applies to kubectl plugins)` : ''}`,
  );
}

/** kubectl `<sub> …` runs the kubectl plugin `kubectl-<sub with _>` it finds through PATH, unchecked. */
function launcherRuns(world: PathWorld, args: string[]): Ran {
  const found = lookPath(`kubectl-${(args[0] ?? '').replace(/-/g, '_')}`, world);
  return 'path' in found ? 'kubectl plugin' : 'nothing';
}

/** How an outcome reads in a verdict. */
export function showOutcome(v: KubercOutcome): string {
  const said = v.says ? `: "${v.says}"` : '';
  switch (v.result) {
    case 'authenticated':
      return `ran the ${v.ran} and authenticated as ${v.user}${said}`;
    case 'refused':
      return `refused the plugin${said}`;
    case 'stops':
      return `stopped before any request${said}`;
  }
}

/** Another client under a DenyAll kuberc (named by $KUBERC and at ~/.kube/kuberc): does it run the plugin? */
export interface ClientUnderKuberc {
  pluginRan: boolean;
  /** The API server's status for a GET of /api (200: the plugin's token was accepted), or the client's refusal. */
  answer: number | 'no request';
}

export function predictOtherClient(client: 'client-go' | 'client-node' | 'python'): Prediction<ClientUnderKuberc> {
  const e = clientEnforcesKuberc(client);
  return {
    value: e.enforces ? { pluginRan: false, answer: 'no request' } : { pluginRan: true, answer: 200 },
    model: 'kuberc policy (src/model/kuberc-policy.ts clientEnforcesKuberc)',
    because: `${client}: ${e.because}`,
  };
}
