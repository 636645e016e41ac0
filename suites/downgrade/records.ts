// The downgrade paths that hinge on state the kubelet keeps: KEP-2535 pull
// records on disk (the gate off and on again; a one-minor kubelet downgrade)
// and the in-memory credential cache. Predictions chain credprov's
// ensure-secret-pulled model through each pod, and the cache model for the
// plugin's execs (predict.ts).
import { normalizeImage } from '../../src/matching/image.ts';
import {
  caseOf,
  ensureKubelet,
  judge,
  kubeletVersionOf,
  notRun,
  runPod,
  since,
  uniqueSuffix,
  type Case,
  type Evidence,
} from '../../src/run/kit.ts';
import { parseKubeVersion, SUPPORTED_MINORS } from '../../src/versions/table.ts';
import { ENSURE_GATE_TOGGLE, KUBELET_ONE_MINOR } from './checks.ts';
import { createImageSecret, outcomeOf, resetKubelet, type DowngradeSetting } from './node.ts';
import { ENSURE_GATE, GATE_TOGGLE_STEPS, RECORDED, RECORDED_MINOR, VIA_PLUGIN } from './plan.ts';
import { podWithSecret, predictGateToggle, predictOneMinor } from './predict.ts';

/**
 * A pod pulls RECORDED with a secret (a record naming it is written); with the gate off a pod without
 * credentials uses the image; with the gate on again the same pod must authenticate and fails.
 */
export function gateToggleCase(s: DowngradeSetting): Case {
  return caseOf(ENSURE_GATE_TOGGLE, async (ctx) => {
    let env = await resetKubelet(ctx, s);
    const secret = await createImageSecret(ctx, env, s.lab, RECORDED);
    const { prediction, degenerate } = predictGateToggle(RECORDED, podWithSecret(RECORDED, secret, s.lab.user));
    if (degenerate) throw new Error(`degenerate scenario: ${degenerate}`);
    // The next case expects the gates at their defaults.
    ctx.defer(async () => {
      await ctx.provider.restartKubelet(ctx.environment, { featureGates: {} }, ctx.progress);
    });
    const tag = uniqueSuffix(ctx.clock);
    const observed: string[] = [];
    const evidence: Evidence[] = [];
    for (const [i, step] of GATE_TOGGLE_STEPS.entries()) {
      env = await ctx.provider.restartKubelet(env, { featureGates: { [ENSURE_GATE]: step.gate } }, ctx.progress);
      const pod = await runPod(env, {
        name: `down-records-${i}-${tag}`,
        image: RECORDED,
        pullPolicy: 'IfNotPresent',
        ...(step.withSecret ? { imagePullSecrets: [secret.name] } : {}),
      });
      observed.push(`${step.label}: ${outcomeOf(pod)}`);
      evidence.push(...pod.evidence);
    }
    return judge(ENSURE_GATE_TOGGLE, { prediction, observed, show: (v) => v.join('; '), evidence });
  });
}

/**
 * With records and a warm Registry cache entry on the newest kubelet, downgrade one minor: the older
 * kubelet honours the records (a pod without credentials must authenticate) and execs the plugin again
 * (its cache is in memory and starts empty).
 */
export function kubeletOneMinorCase(s: DowngradeSetting): Case {
  return caseOf(
    KUBELET_ONE_MINOR,
    async (ctx) => {
      // The gate case before it left the kubelet at the suite's config and default gates.
      const env = ctx.environment;
      const olderMinor = parseKubeVersion(env.kubeVersion).minor - 1;
      if (!SUPPORTED_MINORS.includes(olderMinor)) {
        const why = `the minor before ${env.kubeVersion} (1.${olderMinor}) is not in credprov's version table`;
        return notRun(KUBELET_ONE_MINOR, why, ctx.ci);
      }
      const older = await ensureKubelet(ctx, `1.${olderMinor}`, KUBELET_ONE_MINOR.id);
      const secret = await createImageSecret(ctx, env, s.lab, RECORDED_MINOR);
      const prediction = predictOneMinor(RECORDED_MINOR, VIA_PLUGIN, podWithSecret(RECORDED_MINOR, secret, s.lab.user));
      // An explicit undefined puts the control plane's kubelet back.
      ctx.defer(async () => {
        await ctx.provider.restartKubelet(env, { kubelet: { version: undefined } }, ctx.progress);
      });
      const tag = uniqueSuffix(ctx.clock);
      const repository = normalizeImage(VIA_PLUGIN).repository;
      const pluginExecs = () => since(async () => (await s.fleet.invocations()).filter((r) => r.image === repository));
      const pullRecorded = { image: RECORDED_MINOR, pullPolicy: 'IfNotPresent' as const };
      const pullViaPlugin = { image: VIA_PLUGIN, pullPolicy: 'Always' as const };
      const onNewest = await pluginExecs();
      const p1 = await runPod(env, { name: `down-minor-rec-${tag}`, ...pullRecorded, imagePullSecrets: [secret.name] });
      const p2 = await runPod(env, { name: `down-minor-a-${tag}`, ...pullViaPlugin });
      const p3 = await runPod(env, { name: `down-minor-b-${tag}`, ...pullViaPlugin });
      const execsOnNewest = (await onNewest.added()).length;
      const downgraded = await ctx.provider.restartKubelet(env, { kubelet: { version: older } }, ctx.progress);
      const onOlder = await pluginExecs();
      const p4 = await runPod(downgraded, { name: `down-minor-c-${tag}`, ...pullViaPlugin });
      const p5 = await runPod(downgraded, { name: `down-minor-rec2-${tag}`, ...pullRecorded });
      const versions = { before: kubeletVersionOf(env), after: downgraded.kubeletVersion };
      return judge(KUBELET_ONE_MINOR, {
        prediction,
        observed: {
          beforeDowngrade: `plugin execs ${execsOnNewest} for 2 pulls; record pull ${outcomeOf(p1)}`,
          afterDowngrade: `plugin execs ${(await onOlder.added()).length} for 1 pull; pod without credentials ${outcomeOf(p5)}`,
        },
        show: (v) => `before: ${v.beforeDowngrade}; after (${downgraded.kubeletVersion}): ${v.afterDowngrade}`,
        evidence: [
          ...[p1, p2, p3, p4, p5].flatMap((p) => p.evidence),
          { kind: 'data', label: 'kubelet versions', data: versions },
        ],
        actor: `the kubelets (${versions.before} → ${versions.after})`,
      });
    },
    { needs: ['swapKubeletBinary'] },
  );
}
