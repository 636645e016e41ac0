// The provider-config-directory suite's plan: two providers that both match
// one private image, named so that the order of their names is the reverse of
// the order of the files that declare them; and three config directories
// (merged, a repeated name, empty). Data only: the registry's host is known
// once it runs, so the directories are a function of it.
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';

/** Declared in the first file: exec'd first when the directory is merged in file order. Its login is refused. */
export const FIRST = 'zz-declared-first';
/** Declared in the second file, first by name: answers the working login. */
export const SECOND = 'aa-declared-second';
export const REPOSITORY = 'cfgdir/private';

export interface ConfigFilePlan {
  name: string;
  /** Provider names the file declares, in order; undefined: not a config file (a note the kubelet must skip). */
  providers?: string[];
}

export interface DirectoryPlan {
  /** Directory name under the suite's plugin dir. */
  name: string;
  files: ConfigFilePlan[];
}

export const MERGED: DirectoryPlan = {
  name: 'merged',
  files: [
    // .yaml then .json: both extensions read, in lexical order of the names.
    { name: '10-first.yaml', providers: [FIRST] },
    { name: '20-second.json', providers: [SECOND] },
    // Not *.json/*.yaml/*.yml: skipped. Were it read, it would not decode and the kubelet would not start.
    { name: '30-notes.txt' },
  ],
};
export const DUPLICATE: DirectoryPlan = {
  name: 'duplicate',
  files: [
    { name: '10-first.yaml', providers: [FIRST] },
    { name: '20-again.yml', providers: [FIRST] },
  ],
};
export const EMPTY: DirectoryPlan = { name: 'empty', files: [] };

export function imageOf(host: string): string {
  return `${host}/${REPOSITORY}:v1`;
}

function providerEntry(name: string, host: string) {
  return {
    name,
    apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
    matchImages: [`${host}/${REPOSITORY}`],
    // 0s: every pull execs both providers, whatever ran before.
    defaultCacheDuration: '0s',
  };
}

/** One file's text: JSON for *.json, YAML otherwise; a note for a file that is no config. */
export function fileText(f: ConfigFilePlan, host: string): string {
  if (!f.providers) return 'a note beside the config files: not YAML a CredentialProviderConfig decodes from {\n';
  const config: CredentialProviderConfig = {
    apiVersion: 'kubelet.config.k8s.io/v1',
    kind: 'CredentialProviderConfig',
    providers: f.providers.map((n) => providerEntry(n, host)),
  } as CredentialProviderConfig;
  if (f.name.endsWith('.json')) return `${JSON.stringify(config, null, 2)}\n`;
  return [
    'apiVersion: kubelet.config.k8s.io/v1',
    'kind: CredentialProviderConfig',
    'providers:',
    ...config.providers.flatMap((p) => [
      `  - name: ${p.name}`,
      `    apiVersion: ${p.apiVersion}`,
      '    matchImages:',
      ...p.matchImages.map((m) => `      - ${m}`),
      `    defaultCacheDuration: ${p.defaultCacheDuration}`,
    ]),
    '',
  ].join('\n');
}
