// KEP-4412 rolled back: the SA-token gate turned off under a config that
// still has tokenAttributes (the kubelet must refuse to start), the
// documented fix (drop tokenAttributes), and a pod that ran all along.
import { normalizeImage } from '../../src/matching/image.ts';
import {
  createPod,
  deletePod,
  errorMessage,
  judge,
  kubeletVersionOf,
  runPod,
  since,
  uniqueSuffix,
  type Case,
  type Evidence,
} from '../../src/run/kit.ts';
import { PODS_KEEP_RUNNING, SA_GATE_OFF_FIX, SA_GATE_OFF_REFUSED } from './checks.ts';
import { tryStart, waitRunning, type DowngradeSetting } from './node.ts';
import { IMAGE, withTokenAttributes } from './plan.ts';
import { GATE_OFF, predictGateOffFix, predictGateOffRefused, predictPodKeepsRunning } from './predict.ts';

/** The suite's first case: it runs on the kubelet as the environment came up (the suite's config, default gates). */
export function gateOffCase(s: DowngradeSetting): Case {
  return {
    checks: [SA_GATE_OFF_REFUSED, SA_GATE_OFF_FIX, PODS_KEEP_RUNNING],
    async run(ctx) {
      const env = ctx.environment;
      const kubeletVersion = kubeletVersionOf(env);
      const execs = await since(() => s.fleet.invocations());
      // A record-free image every node has: the pod runs whatever the provider config says.
      if (!env.sandboxImage)
        throw new Error(`environment ${env.name} names no sandbox image for the pod that must keep running`);
      const pod = `down-running-${uniqueSuffix(ctx.clock)}`;
      await createPod(env, { name: pod, image: env.sandboxImage, pullPolicy: 'Never' });
      ctx.defer(() => deletePod(env, pod));
      const before = await waitRunning(env, pod);

      // 1. the gate off with tokenAttributes in the config.
      const refused = await tryStart(ctx, env, withTokenAttributes(s.fleet.config), GATE_OFF);
      const refusedResult = judge(SA_GATE_OFF_REFUSED, {
        prediction: predictGateOffRefused(s.fleet.config, kubeletVersion),
        observed: refused.outcome,
        show: (v) => (v === refused.outcome && refused.error ? `${v}: ${refused.error.slice(0, 260)}` : v),
        evidence: [
          {
            kind: 'text',
            label: "the kubelet's error, as the user sees it",
            text: refused.error || '(none: it started)',
          },
        ],
      });

      // 2. the documented fix: drop tokenAttributes, gate still off.
      const fixed = await tryStart(ctx, env, s.fleet.config, GATE_OFF);
      const pull =
        fixed.outcome === 'starts'
          ? await runPod(fixed.env, { name: `down-fix-${uniqueSuffix(ctx.clock)}`, image: IMAGE, pullPolicy: 'Always' })
          : undefined;
      const repository = normalizeImage(IMAGE).repository;
      const fixExecs = (await execs.added()).filter((i) => i.image === repository);
      const fixEvidence: Evidence[] = [
        ...(pull?.evidence ?? []),
        {
          kind: 'invocation',
          label: 'plugin invocations after the fix',
          data: fixExecs.map((i) => ({ image: i.image, tokenPresent: i.tokenPresent, exitCode: i.response.exitCode })),
        },
        ...(fixed.error ? [{ kind: 'text' as const, label: 'kubelet error', text: fixed.error }] : []),
      ];
      const fixResult = judge(SA_GATE_OFF_FIX, {
        prediction: predictGateOffFix(s.fleet.config, kubeletVersion),
        observed: `${fixed.outcome}; pull ${pull?.pull ?? 'not tried'}${fixExecs.some((i) => i.tokenPresent) ? ' with a token' : ' without a token'}`,
        show: String,
        evidence: fixEvidence,
      });

      // 3. the pod that ran all along.
      const after = await waitRunning(fixed.env, pod, 30_000).catch((err: unknown) => ({
        phase: errorMessage(err),
        containerID: '',
        restartCount: -1,
        running: false,
      }));
      const keptResult = judge(PODS_KEEP_RUNNING, {
        prediction: predictPodKeepsRunning(before.restartCount),
        observed: {
          running: after.running,
          sameContainer: after.containerID === before.containerID,
          restartCount: after.restartCount,
        },
        show: (v) => `running ${v.running}, same container ${v.sameContainer}, restarts ${v.restartCount}`,
        evidence: [{ kind: 'data', label: 'container before and after', data: { before, after } }],
      });
      return [refusedResult, fixResult, keptResult];
    },
  };
}
