// The provider-config-directory suite's cases. Each restarts the kubelet with
// --image-credential-provider-config naming one of the suite's directories
// (through the spec's configFile, which every provider hands the kubelet as
// it is) and puts the suite's own config back afterwards: a start the kubelet
// refuses leaves no kubelet running.
import type { CredentialProviderSpec } from '../../src/api/spec/types.ts';
import {
  assertKubeletLoadedConfig,
  caseOf,
  judge,
  kubeletEvidence,
  kubeletVersionOf,
  notApplicable,
  notRun,
  runPod,
  tryRestartKubelet,
  type Case,
  type CaseContext,
  type Check,
  type Environment,
  type Fleet,
  type LabRegistry,
} from '../../src/run/kit.ts';
import { errorCarries, REGISTER_FAILED } from '../../src/model/provider-config-load.ts';
import { CONFIG_HASH, MERGED_ORDER } from './checks.ts';
import { imageOf, REPOSITORY, type DirectoryPlan } from './plan.ts';
import { predictMerged, predictStart, type MergedSeen, type StartSeen } from './predict.ts';

export interface DirectorySetting {
  lab: LabRegistry;
  fleet: Fleet;
  /** The suite's own provider spec (one inline file), as the environment came up with it. */
  base: CredentialProviderSpec;
  /** Where each directory of the plan was written, by plan name. */
  dirs: Record<string, string>;
}

interface Start {
  seen: StartSeen;
  /** The kubelet's error, whole, when it refused. */
  error: string;
  env?: Environment;
}

/** Restarts the kubelet on `dir`; the suite's own config goes back after the case. */
async function startOn(ctx: CaseContext, s: DirectorySetting, dir: string, predicted: StartSeen): Promise<Start> {
  ctx.defer(async () => {
    await ctx.provider.restartKubelet(ctx.environment, { credentialProvider: s.base }, ctx.progress);
  });
  const credentialProvider: CredentialProviderSpec = { plugins: s.base.plugins, configFile: dir };
  const start = await tryRestartKubelet(ctx, ctx.environment, { credentialProvider });
  if (start.outcome === 'starts') return { seen: { outcome: 'starts' }, error: '', env: start.env };
  // The comparison names the predicted error when the kubelet's own output carries it, else what it said.
  const carried = predicted.error !== undefined && errorCarries(start.error, predicted.error, dir);
  const error = carried ? predicted.error! : start.error.slice(0, 400);
  return { seen: { outcome: 'refuses to start', error }, error: start.error };
}

/** The kubelet's own line of a refused start (klog: "Failed to register CRI auth plugins" err="…"), read before the restore appends more. */
const refusalLog = (ctx: CaseContext, start: Start) =>
  start.error ? kubeletEvidence(ctx.environment, [REGISTER_FAILED]) : Promise.resolve([]);

const showStart = (v: StartSeen) => (v.error ? `${v.outcome}: ${v.error}` : v.outcome);
const showMerged = (v: MergedSeen) =>
  v.outcome !== 'starts'
    ? showStart(v)
    : `starts; execs ${v.execs?.join(' → ') || 'none'}; logins ${v.logins?.join(' → ') || 'none'}; pull ${v.pull}`;

/** The merged directory: exec order and login order of the pull, then the config hash the kubelet publishes. */
export function mergedCase(s: DirectorySetting, plan: DirectoryPlan): Case {
  return {
    checks: [MERGED_ORDER, CONFIG_HASH],
    async run(ctx) {
      const kubeletVersion = kubeletVersionOf(ctx.environment);
      const dir = s.dirs[plan.name]!;
      const host = s.lab.registry.host;
      const prediction = predictMerged(plan, dir, kubeletVersion, { host, username: s.lab.user.username });
      const start = await startOn(ctx, s, dir, prediction.value);
      const evidence = [
        ...(start.error ? [{ kind: 'text' as const, label: "the kubelet's error", text: start.error }] : []),
        ...(await refusalLog(ctx, start)),
      ];
      if (!start.env) {
        return [
          judge(MERGED_ORDER, { prediction, observed: start.seen, show: showMerged, evidence }),
          // Predicted refused (1.33): there is no hash to read. Predicted to start: the refusal above fails
          // MERGED_ORDER, and the hash is not run, which CI counts as a failure too.
          prediction.value.outcome === 'starts'
            ? notRun(CONFIG_HASH, `the kubelet did not start on ${dir}, so it published no hash`, ctx.ci)
            : notApplicable(
                CONFIG_HASH,
                `kubelet ${kubeletVersion} refuses a config directory, so it publishes no hash`,
              ),
        ];
      }
      const env = start.env;
      ctx.onFailure(() => kubeletEvidence(env, [REPOSITORY, 'credential provider', 'Failed to pull']));
      const namespace = await ctx.namespace('cfgdir');
      const run = await runPod(env, { name: 'cfgdir', namespace, image: imageOf(host), pullPolicy: 'Always' });
      // Only this case pulls the repository, from a registry of this run: no time filter needed.
      const repository = `${host}/${REPOSITORY}`;
      const execs = (await s.fleet.invocations()).filter((i) => i.image === repository).map((i) => i.provider);
      // containerd's pulls only: the suite's own push of the image is in the registry's log too.
      const requests = (await s.lab.requests()).filter(
        (r) => r.path.includes(`/${REPOSITORY}/`) && r.agent.startsWith('containerd'),
      );
      const logins = [...new Set(requests.map((r) => r.credential).filter((c) => c !== 'none'))];
      const merged = judge(MERGED_ORDER, {
        prediction,
        observed: { outcome: 'starts', execs, logins, pull: run.pull },
        show: showMerged,
        evidence: [
          ...run.evidence,
          {
            kind: 'data',
            label: `registry requests for ${REPOSITORY} (credential of each, never the secret)`,
            data: requests.map((r) => ({
              time: r.time,
              method: r.method,
              path: r.path,
              status: r.status,
              credential: r.credential,
            })),
          },
        ],
      });
      return [merged, await assertKubeletLoadedConfig(CONFIG_HASH, env)];
    },
  };
}

/** A directory the kubelet must refuse: it does not start, with the error credprov's load model predicts. */
export function refusedCase(s: DirectorySetting, check: Check, plan: DirectoryPlan): Case {
  return caseOf(check, async (ctx) => {
    const kubeletVersion = kubeletVersionOf(ctx.environment);
    const dir = s.dirs[plan.name]!;
    const prediction = predictStart(plan, dir, kubeletVersion);
    const start = await startOn(ctx, s, dir, prediction.value);
    return judge(check, {
      prediction,
      observed: start.seen,
      show: showStart,
      evidence: [
        { kind: 'text', label: "the kubelet's error, as the user sees it", text: start.error || '(none: it started)' },
        ...(await refusalLog(ctx, start)),
      ],
    });
  });
}
