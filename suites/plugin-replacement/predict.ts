// What each replacement does, from credprov's model of it
// (src/model/plugin-replacement.ts replacePlugin): which binary the next pull
// runs (or none, from the cache), whether the installer's write succeeds, and
// what an exec during the write meets. Pure.
import { replacePlugin, type ReplacementCase } from '../../src/model/plugin-replacement.ts';
import type { Prediction } from '../../src/run/kit.ts';
import { STORY } from './plan.ts';

export const MODEL = 'plugin replacement (src/model/plugin-replacement.ts replacePlugin)';

/** What a pull of the story shows: the versions exec'd for its image, and whether it pulled. */
export interface PullSeen {
  ran: string[];
  pulled: boolean;
}
export interface InstallSeen extends PullSeen {
  /** The installer's write: 'ok', or the error code it failed with (ETXTBSY). */
  installer: string;
}
export interface BusySeen extends PullSeen {
  /** What the kubelet's log says of the exec: 'text file busy', 'no such file or directory', or 'nothing'. */
  kubelet: string;
}

export interface StoryPredictions {
  rename: Prediction<InstallSeen>;
  cache: Prediction<PullSeen>;
  inPlace: Prediction<InstallSeen>;
  duringWrite: Prediction<BusySeen>;
  unlinked: Prediction<BusySeen>;
}

const caseOf = (pod: string): ReplacementCase => {
  const c = STORY.find((s) => s.pod === pod)?.model;
  if (!c) throw new Error(`the story has no modelled pull '${pod}'`);
  return c;
};

/** `running`: the binary at the path before the install; `writing`: the one the install writes. */
function nextPull(pod: string, running: string, writing: string): Prediction<InstallSeen> {
  const p = replacePlugin(caseOf(pod));
  const ran = p.nextPull === 'cached' ? [] : [p.nextPull === 'new-binary' ? writing : running];
  return {
    value: {
      installer: p.installed ? 'ok' : p.installerError === 'Text file busy' ? 'ETXTBSY' : 'failed',
      ran,
      pulled: true,
    },
    model: MODEL,
    because: p.because,
  };
}

/** A pull whose exec starts during the install: the binary it runs (v2, the one in place), or a failed exec and the kubelet's words. */
function execDuring(pod: string): Prediction<BusySeen> {
  const p = replacePlugin(caseOf(pod));
  const said = { 'fails-text-file-busy': 'text file busy', 'fails-no-such-file': 'no such file or directory' } as const;
  const fails = p.execDuringInstall === 'fails-text-file-busy' || p.execDuringInstall === 'fails-no-such-file';
  return {
    value: {
      ran: fails ? [] : ['v2'],
      pulled: !fails,
      kubelet: fails ? said[p.execDuringInstall as keyof typeof said] : 'nothing',
    },
    model: MODEL,
    because: p.because,
  };
}

export function predictStory(): StoryPredictions {
  const rename = nextPull('second', 'v1', 'v2');
  const again = nextPull('first-again', 'v1', 'v2');
  const inPlace = nextPull('third', 'v2', 'v3');
  return {
    rename,
    cache: { value: { ran: again.value.ran, pulled: true }, model: MODEL, because: again.because },
    inPlace,
    duringWrite: execDuring('busy'),
    unlinked: execDuring('gone'),
  };
}
