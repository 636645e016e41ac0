// certify kubelet-plugin --live, after its pulls: the vendor's upgrade story
// (k/k #120291). A new file is renamed over the plugin's entry in the
// kubelet's bin dir (a fresh recording wrapper in front of the same,
// unmodified plugin, written beside it and rename(2)d over it, as an installer
// should), then the first image is pulled once more. The cache model says
// whether that pull execs; the replacement model (src/model/plugin-replacement.ts)
// says that an exec runs the renamed file with no restart. The check carries
// the installer advice the plugin-replacement suite proves on a compiled
// plugin (the ETXTBSY half needs an exec held open, which a vendor's plugin
// cannot be made to do).
import type { Environment } from '../../cluster/provider.ts';
import { INSTALLER_ADVICE, replacePlugin } from '../../model/plugin-replacement.ts';
import { installRecordingWrapper, readWrappedInvocations } from '../../plugin/recording-wrapper.ts';
import { skipped } from '../../report/checks.ts';
import type { Check, CheckResult } from '../../report/model.ts';
import { runPod } from '../../run/lab.ts';
import { judge } from '../../run/prediction.ts';

export const KP_LIVE_UPGRADE_RENAME: Check = {
  id: 'KP-LIVE-UPGRADE-RENAME',
  level: 'SHOULD',
  title:
    "a new plugin file renamed over the one in the kubelet's bin dir serves the next pull with no kubelet restart (the kubelet execs it if the pull is not cached): how a vendor's installer must upgrade the plugin",
  source:
    "kubelet plugin.go: the path is joined at every exec (v1.37.1:706), the cache is the provider's, not the binary's; k/k #120291; credprov's plugin-replacement suite (docs/suites/plugin-replacement.md) shows ETXTBSY for a copy onto a running plugin",
};

export interface UpgradeRun {
  env: Environment;
  provider: string;
  /** The plugin the wrappers run (unmodified). */
  target: string;
  /** The wrapper log dir of the pulls so far (the old file's execs). */
  logDir: string;
  image: string;
  podName: string;
  /** Whether the first pull of `image` worked: then this one must too. */
  pulledBefore: boolean;
  /** The cache model's answer for this pull, at the time it is made. */
  predictExec: () => { exec: boolean; why: string };
  timeoutMs: number;
}

export async function upgradeByRename(u: UpgradeRun): Promise<CheckResult> {
  if (!u.env.pluginBinDir)
    return skipped(
      KP_LIVE_UPGRADE_RENAME,
      'the environment names no kubelet plugin bin dir on this host to rename into',
    );
  const startedAt = new Date();
  const renamedLog = `${u.logDir}-renamed`;
  const oldBefore = (await readWrappedInvocations(u.logDir)).length;
  // installRecordingWrapper writes <bin dir>/<name>.tmp-<pid> and renames it over <bin dir>/<name>.
  await installRecordingWrapper({ binDir: u.env.pluginBinDir, name: u.provider, target: u.target, logDir: renamedLog });
  const { exec, why } = u.predictExec();
  const model = replacePlugin({
    install: 'rename-over',
    execRunningDuringInstall: false,
    execStartsDuringInstall: false,
    cachedEntryForNextPull: !exec,
  });
  const expected = model.nextPull === 'cached' ? 'no exec (cached)' : 'the renamed file ran';
  const run = await runPod(u.env, { name: u.podName, image: u.image, pullPolicy: 'Always', timeoutMs: u.timeoutMs });
  const renamed = (await readWrappedInvocations(renamedLog)).filter((x) => x.provider === u.provider);
  const old = (await readWrappedInvocations(u.logDir)).slice(oldBefore).filter((x) => x.provider === u.provider);
  const ran = renamed.length > 0 ? 'the renamed file ran' : old.length > 0 ? 'the old file ran' : 'no exec (cached)';
  return judge(KP_LIVE_UPGRADE_RENAME, {
    prediction: {
      value: expected,
      model: 'cache model + plugin replacement (src/model/plugin-replacement.ts replacePlugin)',
      because: `${why}; ${model.because}`,
    },
    observed: ran,
    show: (v) => `${u.image} after the rename: ${v}`,
    evidence: [
      {
        kind: 'invocation',
        label: `plugin execs after the rename (recording wrappers, ${renamedLog} and ${u.logDir})`,
        data: { renamed: renamed.map((x) => x.startedAt), old: old.map((x) => x.startedAt) },
      },
      ...run.evidence,
    ],
    problems:
      u.pulledBefore && run.pull !== 'success'
        ? [`the pull after the rename failed (${run.failure ?? 'unknown'}) where the first pull of ${u.image} worked`]
        : [],
    note: `installer advice: ${INSTALLER_ADVICE}`,
    startedAt,
  });
}
