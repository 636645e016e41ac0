// The first kubelet restart (into the second policy) and the image removed
// just before it: judged from what that part noted (phases.ts).
import { caseOf, judge, type Case } from '../../src/run/kit.ts';
import { PHASES } from './plan-cells.ts';
import { PRUNE, RESTART } from './checks.ts';
import { PRUNE_WAIT_MS } from './plan.ts';
import { predictPrune } from './predict-records.ts';
import type { Story } from './story.ts';

export const restartCase = (story: Story): Case =>
  caseOf(RESTART, async () => {
    const restart = story.need(story.restart, `the kubelet restart into ${PHASES[1]!.policy}`);
    return judge(RESTART, {
      prediction: restart.prediction,
      observed: restart.observed,
      show: (v) => JSON.stringify(v),
      evidence: restart.evidence,
    });
  });

export const pruneCase = (story: Story): Case =>
  caseOf(PRUNE, async () => {
    // The re-imported image's pod runs with the second policy's cells: its outcome is in once they are.
    story.need(story.phases[1], `policy ${PHASES[1]!.policy}`);
    const prune = story.need(story.prune, 'the image removal');
    const reimported = story.need(prune.reimported, 'the re-import');
    return judge(PRUNE, {
      prediction: predictPrune(prune.pruning, reimported),
      observed: prune.observed,
      show: (v) =>
        `record ${v.afterWait} after ${PRUNE_WAIT_MS / 1000}s, ${v.afterRestart} after a kubelet restart; ` +
        `re-imported image, Never, no secret: ${v.reimportedPod}`,
      evidence: prune.evidence,
    });
  });
