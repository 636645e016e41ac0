// Names of the local environments the e2e tests bring up. CREDPROV_E2E_ENV_PREFIX
// (default 'e2e-') keeps the runs of several engineers on one host apart:
// everything an environment owns (state dir, loopback address, netns, cgroup,
// hosts lines) derives from its name.
export function e2eEnvName(suffix: string): string {
  return `${process.env.CREDPROV_E2E_ENV_PREFIX ?? 'e2e-'}${suffix}`;
}
