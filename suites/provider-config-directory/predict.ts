// credprov's predictions for the provider-config-directory suite, from its
// models: how the kubelet reads the directory (src/model/provider-config-load.ts,
// version table configDirectory), which providers it then execs and which
// credentials the pull tries (src/model/pull-credentials.ts). Pure.
import { matchImage } from '../../src/matching/url.ts';
import { ACCEPTED_UNNAMED, type Prediction } from '../../src/run/kit.ts';
import {
  configFileOrder,
  predictConfigLoad,
  type ConfigFileProviders,
  type ConfigLoad,
} from '../../src/model/provider-config-load.ts';
import { predictPull } from '../../src/model/pull-credentials.ts';
import { FIRST, imageOf, REPOSITORY, type DirectoryPlan } from './plan.ts';

export const LOAD_MODEL = 'config load model (src/model/provider-config-load.ts) + version table (configDirectory)';
export const PULL_MODEL = `${LOAD_MODEL} + pull-credentials model (src/model/pull-credentials.ts)`;

/** How a start reads in a comparison: it started, or it refused with the kubelet's error. */
export interface StartSeen {
  outcome: ConfigLoad['outcome'];
  error?: string;
}

/** The files of `plan` as the kubelet reads them from `dir`, in its order, with the providers each declares. */
export function kubeletFiles(plan: DirectoryPlan, dir: string): ConfigFileProviders[] {
  const order = configFileOrder(
    dir,
    plan.files.map((f) => ({ name: f.name, isDirectory: false })),
  );
  return order.map((path) => ({
    path,
    providers: plan.files.find((f) => path.endsWith(`/${f.name}`))?.providers ?? [],
  }));
}

export function loadOf(plan: DirectoryPlan, dir: string, kubeletVersion: string): ConfigLoad {
  return predictConfigLoad(dir, 'directory', kubeletFiles(plan, dir), kubeletVersion);
}

export function startSeenOf(load: ConfigLoad): StartSeen {
  return load.outcome === 'starts' ? { outcome: 'starts' } : { outcome: load.outcome, error: load.error };
}

/** A start of the kubelet on the directory: refused with the kubelet's error, or started. */
export function predictStart(plan: DirectoryPlan, dir: string, kubeletVersion: string): Prediction<StartSeen> {
  const load = loadOf(plan, dir, kubeletVersion);
  return { value: startSeenOf(load), model: LOAD_MODEL, because: load.because };
}

export interface MergedSeen extends StartSeen {
  /** Providers exec'd for the image, in order. */
  execs?: string[];
  /** Logins the registry saw, in order of first use: the refused user's name, or ACCEPTED_UNNAMED. */
  logins?: string[];
  pull?: 'success' | 'failure';
}

/**
 * The merged directory: the kubelet starts (1.34+) and execs every provider
 * matching the image in merged order; FIRST answers a login the registry
 * refuses, the other the working one, so the pull tries them in that order.
 */
export function predictMerged(
  plan: DirectoryPlan,
  dir: string,
  kubeletVersion: string,
  o: { host: string; username: string },
): Prediction<MergedSeen> {
  const load = loadOf(plan, dir, kubeletVersion);
  if (load.outcome !== 'starts') return { value: startSeenOf(load), model: LOAD_MODEL, because: load.because };
  const image = imageOf(o.host);
  // Every provider of the plan declares the same matchImages (plan.ts providerEntry).
  const matches = matchImage(`${o.host}/${REPOSITORY}`, image).match;
  const matching = load.providers.filter(() => matches);
  const pull = predictPull({
    image,
    secrets: [],
    providers: matching.map((name) => ({
      name,
      matchImages: [`${o.host}/${REPOSITORY}`],
      auths: { [o.host]: { username: o.username, works: name !== FIRST } },
    })),
  });
  return {
    value: {
      outcome: 'starts',
      execs: matching,
      logins: pull.attempts.map((a) => (a.works ? ACCEPTED_UNNAMED : a.username)),
      pull: pull.pull,
    },
    model: PULL_MODEL,
    because: `${load.because}; every provider whose matchImages match is exec'd, in config order; ${pull.because}`,
  };
}
