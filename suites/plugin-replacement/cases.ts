// The plugin-replacement story: six pulls in order on one node, the plugin
// in the kubelet's bin dir replaced between (and during) them as an
// installer would, each replacement predicted before it happens. Observed:
// which stamped version the plugin's own log says ran for each image, how
// each pod ended, the installer's error, and the kubelet's log of a failed exec.
import { chmod, copyFile, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  judge,
  kubeletEvidence,
  kubeletFilesOf,
  linesSince,
  readVersionedExecs,
  runPod,
  since,
  waitFor,
  type Case,
  type CheckResult,
  type PodRun,
} from '../../src/run/kit.ts';
import {
  CACHE_SURVIVES,
  EXEC_DURING_WRITE,
  IN_PLACE_BUSY,
  PLUGIN_REPLACEMENT_CHECKS,
  RENAME_NEXT_EXEC,
  UNLINK_WINDOW,
} from './checks.ts';
import { POD_TIMEOUT_MS, PROVIDER, STORY, type StoryStep } from './plan.ts';
import { predictStory, type BusySeen, type PullSeen } from './predict.ts';

export interface Story {
  id: string;
  host: string;
  /** The plugin's log (its env CREDPROV_VP_LOG). */
  log: string;
  /** The stamped binaries, by version. */
  binaries: Record<string, string>;
}

interface Pulled {
  step: StoryStep;
  run: PodRun;
  ran: string[];
  /** The installer's write: 'ok', 'ETXTBSY', another error code, or '' (no write). */
  installer: string;
  /** The kubelet's log lines about the plugin's exec for this pull's image that failed. */
  execErrors: string[];
}

/** How the kubelet words a failed exec of the plugin, as the checks look for it. */
const EXEC_ERRORS = ['text file busy', 'no such file or directory'];

export function storyCase(s: Story): Case {
  return {
    checks: PLUGIN_REPLACEMENT_CHECKS,
    needs: ['kubeletFiles'],
    async run(ctx): Promise<CheckResult[]> {
      const env = ctx.environment;
      if (!env.pluginBinDir) throw new Error('the environment names no plugin bin dir (capability installPlugins)');
      const path = join(env.pluginBinDir, PROVIDER);
      const namespace = await ctx.namespace('upg');
      ctx.onFailure(() => kubeletEvidence(env, [PROVIDER, s.host]));
      const predicted = predictStory();
      const pulled: Pulled[] = [];
      for (const step of STORY) {
        const image = `${s.host}/${step.repository}`;
        const execs = await since(() => readVersionedExecs(s.log));
        const kubeletLog = await linesSince(kubeletFilesOf(env).log);
        let installer = '';
        if (step.install === 'rename-over') installer = await renameOver(s.binaries[step.writes!]!, path);
        const hold = step.install === 'hold-open-for-writing' ? await open(path, 'r+') : undefined;
        if (step.install === 'unlink-during-pull') await rm(path);
        try {
          const pod = runPod(env, {
            name: `upg-${s.id}-${step.pod}`,
            namespace,
            image: `${image}:v1`,
            pullPolicy: 'Always',
            timeoutMs: POD_TIMEOUT_MS,
          });
          if (step.install === 'write-in-place-during-exec') {
            pod.catch(() => {});
            await waitFor(
              `the plugin's exec for ${image} to start`,
              async () =>
                (await execs.added()).some((e) => e.event === 'start' && e.image === image) ? true : undefined,
              { timeoutMs: POD_TIMEOUT_MS, clock: ctx.clock },
            );
            installer = await copyInPlace(s.binaries[step.writes!]!, path);
          }
          const run = await pod;
          const ran = (await execs.added())
            .filter((e) => e.event === 'start' && e.image === image)
            .map((e) => e.version);
          const execErrors = (await kubeletLog.added()).filter(
            (l) => l.includes(image) && EXEC_ERRORS.some((e) => l.includes(e)),
          );
          pulled.push({ step, run, ran, installer, execErrors });
        } finally {
          await hold?.close();
          // The installer's second half: the plugin back, by rename.
          if (step.install === 'unlink-during-pull') await renameOver(s.binaries[step.writes!]!, path);
        }
      }
      const at = (pod: string) => pulled.find((p) => p.step.pod === pod)!;
      const seen = (p: Pulled): PullSeen => ({ ran: p.ran, pulled: p.run.pull === 'success' });
      const showPull = (v: PullSeen) =>
        `${v.ran.length ? `ran ${v.ran.join(', ')}` : 'no exec'}, ${v.pulled ? 'pulled' : 'pull failed'}`;
      const evidence = (...pods: string[]) => [
        {
          kind: 'data' as const,
          label: `the plugin's log (${s.log})`,
          data: pods.map((n) => ({ pod: n, ran: at(n).ran })),
        },
        ...pods.flatMap((n) => at(n).run.evidence),
      ];
      const failedExec = (pod: string): BusySeen => {
        const said = EXEC_ERRORS.find((e) => at(pod).execErrors.some((l) => l.includes(e)));
        return { ...seen(at(pod)), kubelet: said ?? 'nothing' };
      };
      const showFailed = (v: BusySeen) =>
        `${showPull(v)}; the kubelet logs ${v.kubelet === 'nothing' ? 'no exec error' : `"${v.kubelet}"`}`;
      const execErrorEvidence = (pod: string) => ({
        kind: 'text' as const,
        label: `kubelet log: the failed exec for ${pod}`,
        text: at(pod).execErrors.slice(0, 4).join('\n') || '(none)',
      });
      return [
        judge(RENAME_NEXT_EXEC, {
          prediction: predicted.rename,
          observed: { installer: at('second').installer, ...seen(at('second')) },
          show: (v) => `rename ${v.installer}; the next pull ${showPull(v)}`,
          evidence: evidence('first', 'second'),
        }),
        judge(CACHE_SURVIVES, {
          prediction: predicted.cache,
          observed: seen(at('first-again')),
          show: (v) => `the image v1 answered, after the rename: ${showPull(v)}`,
          evidence: evidence('first', 'first-again'),
        }),
        judge(IN_PLACE_BUSY, {
          prediction: predicted.inPlace,
          observed: { installer: at('slow').installer, ...seen(at('third')) },
          show: (v) => `copy onto the running plugin: ${v.installer}; the next pull ${showPull(v)}`,
          evidence: evidence('slow', 'third'),
        }),
        judge(EXEC_DURING_WRITE, {
          prediction: predicted.duringWrite,
          observed: failedExec('busy'),
          show: showFailed,
          evidence: [...evidence('busy'), execErrorEvidence('busy')],
        }),
        judge(UNLINK_WINDOW, {
          prediction: predicted.unlinked,
          observed: failedExec('gone'),
          show: showFailed,
          evidence: [...evidence('gone'), execErrorEvidence('gone')],
        }),
      ];
    },
  };
}

/** The installer's right way: a temporary file in the same directory, then rename(2) over the plugin. */
async function renameOver(binary: string, path: string): Promise<string> {
  const tmp = `${path}.credprov-new`;
  await copyFile(binary, tmp);
  await chmod(tmp, 0o755);
  await rename(tmp, path);
  return 'ok';
}

/** The installer's wrong way: open the plugin for writing (cp onto it) and write the new bytes; 'ok' or the error code. */
async function copyInPlace(binary: string, path: string): Promise<string> {
  try {
    await copyFile(binary, path);
    return 'ok';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}
