// The plugin-replacement suite's plan, as data: one compiled provider (the
// versioned plugin) on a host of this run's own, the images of the story and
// what the installer does before each pull. No I/O.
import type { ReplacementCase } from '../../src/model/plugin-replacement.ts';

export const PROVIDER = 'credprov-upg';
export const ZONE = 'upg.test';
export const hostFor = (id: string): string => `${id}.${ZONE}`;
/** v1 is installed by the environment; v2 is renamed over it; v3 is what an in-place copy would write. */
export const VERSIONS = ['v1', 'v2', 'v3'] as const;
/** The plugin's answer: Image entries that outlive the suite, so a repeated image is served from the cache. */
export const CACHE_DURATION = '10m';
/** How long the plugin takes for the `slow` image: the window the in-place copy is tried in. */
export const SLOW = '8s';
export const POD_TIMEOUT_MS = 90_000;
export const REPOSITORIES = ['upg/first', 'upg/second', 'upg/third', 'upg/busy', 'upg/slow', 'upg/gone'];

export type Install =
  'rename-over' | 'write-in-place-during-exec' | 'hold-open-for-writing' | 'unlink-during-pull' | 'none';

/** One pull of the story, in order, and what the installer does just before (or, for the slow pull, during) it. */
export interface StoryStep {
  pod: string;
  repository: string;
  install: Install;
  /** The new binary the install writes (absent: none). */
  writes?: (typeof VERSIONS)[number];
  /** The case replacePlugin is asked (absent: the baseline pull, nothing replaced). */
  model?: ReplacementCase;
}

export const STORY: StoryStep[] = [
  { pod: 'first', repository: 'upg/first', install: 'none' },
  {
    pod: 'second',
    repository: 'upg/second',
    install: 'rename-over',
    writes: 'v2',
    model: {
      install: 'rename-over',
      execRunningDuringInstall: false,
      execStartsDuringInstall: false,
      cachedEntryForNextPull: false,
    },
  },
  {
    pod: 'first-again',
    repository: 'upg/first',
    install: 'none',
    model: {
      install: 'rename-over',
      execRunningDuringInstall: false,
      execStartsDuringInstall: false,
      cachedEntryForNextPull: true,
    },
  },
  // The copy is tried while this pull's exec sleeps; the pull itself runs the binary in place (v2).
  { pod: 'slow', repository: 'upg/slow', install: 'write-in-place-during-exec', writes: 'v3' },
  {
    pod: 'third',
    repository: 'upg/third',
    install: 'none',
    model: {
      install: 'write-in-place',
      execRunningDuringInstall: true,
      execStartsDuringInstall: false,
      cachedEntryForNextPull: false,
    },
  },
  {
    pod: 'busy',
    repository: 'upg/busy',
    install: 'hold-open-for-writing',
    model: {
      install: 'write-in-place',
      execRunningDuringInstall: false,
      execStartsDuringInstall: true,
      cachedEntryForNextPull: false,
    },
  },
  // The plugin removed while the pod pulls (an installer's rm, then write), put back (renamed) after it.
  {
    pod: 'gone',
    repository: 'upg/gone',
    install: 'unlink-during-pull',
    writes: 'v2',
    model: {
      install: 'unlink-then-write',
      execRunningDuringInstall: false,
      execStartsDuringInstall: true,
      cachedEntryForNextPull: false,
    },
  },
];
