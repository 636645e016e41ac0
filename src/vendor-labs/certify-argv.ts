// The argv of `credprov certify kubelet-plugin` on a certify lab (scripts/certify-<plugin>.ts, the e2e tests):
// the lab's plugin, config and images, pulls verified at the lab's registries. Apart from certify-script.ts,
// which imports the CLI, so that a lab never pulls the CLI in.
/** `credprov certify kubelet-plugin` of a lab's plugin: its config and images, pulls verified at the lab's registries. */
export function kubeletCertifyArgv(lab: {
  pluginPath: string;
  configFile: string;
  images: string[];
  caFile: string;
  /** `<image host>=<registry host:port>` each. */
  registryFor: string[];
}): string[] {
  return [
    'certify',
    'kubelet-plugin',
    '--plugin',
    lab.pluginPath,
    '--config',
    lab.configFile,
    ...lab.images.flatMap((i) => ['--image', i]),
    '--verify-pull',
    '--verify-pull-ca',
    lab.caFile,
    ...lab.registryFor.flatMap((r) => ['--registry-for', r]),
  ];
}
