// credprov's model of which credentials the kubelet offers for one image pull
// and in what order (v1.37.1):
//
// - pkg/kubelet/kubelet_pods.go getPullSecretsForPod: the pod's
//   imagePullSecrets in pod order; a secret that does not exist is skipped.
// - pkg/credentialprovider/secrets/secrets.go MakeDockerKeyring: one keyring
//   of every dockerconfigjson secret, unioned BEFORE the node keyring and the
//   external credential providers (UnionDockerKeyring{secrets, {node, plugins}}).
//   A secret with `{"auths":{}}` counts but contributes no credential.
// - pkg/credentialprovider/keyring.go BasicDockerKeyring: keys (auth keys
//   without scheme and /v1/, /v2/) sorted in reverse; Lookup walks them and
//   appends the credentials of every matching key, each key's credentials in
//   the order they were added (secret order; provider config order).
// - pkg/credentialprovider/plugin: providers whose matchImages match the
//   image answer in config order, into one more such keyring.
// - pkg/kubelet/kuberuntime/kuberuntime_image.go PullImage: no credentials →
//   one anonymous pull; otherwise each credential in turn until one works.
//
// The node keyring (a docker config.json in the kubelet's root dir, its cwd,
// $HOME/.docker or /.docker; pkg/credentialprovider/config.go) comes after the
// pod's secrets and before the providers. The local environment has none
// unless a suite writes one (the downgrade suite's fallback case).
import { normalizeImage } from '../matching/image.ts';
import { authKeyToKeyringKey, isDefaultRegistryMatch, matchImage, matchPattern } from '../matching/url.ts';

export interface Credential {
  username: string;
  /** Does the registry accept it for the image. */
  works: boolean;
}

/** One of the pod's imagePullSecrets (kubernetes.io/dockerconfigjson). */
export interface SecretSource {
  name: string;
  /** false: referenced but not (yet) in the API. Default true. */
  exists?: boolean;
  /** `.dockerconfigjson` auths; {} is a placeholder secret. */
  auths: Record<string, Credential>;
}

/** A credential provider of the kubelet's CredentialProviderConfig. */
export interface ProviderSource {
  name: string;
  matchImages: string[];
  /** What it answers for this image ({}: no credentials). */
  auths: Record<string, Credential>;
}

export interface PullCase {
  image: string;
  /** In pod.spec.imagePullSecrets order. */
  secrets: SecretSource[];
  /** In config order. */
  providers?: ProviderSource[];
  /** The node's docker config.json auths (node keyring); default none. */
  node?: Record<string, Credential>;
  /** An anonymous pull works. Default false. */
  publicImage?: boolean;
}

export interface Attempt {
  /** `secret <name>` or `provider <name>`. */
  source: string;
  username: string;
  works: boolean;
}

export interface PullPrediction {
  pull: 'success' | 'failure';
  /** The pull attempts in order; [] means one anonymous pull. */
  attempts: Attempt[];
  /** The source whose credential the pull succeeded with. */
  usedBy?: string;
  because: string;
}

interface Entry {
  source: string;
  key: string;
  credential: Credential;
}

/** BasicDockerKeyring.Add + Lookup for one group of entries (added in order). */
export function keyringLookup(entries: Entry[], repository: string): Entry[] {
  const byKey = new Map<string, Entry[]>();
  for (const e of entries) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
  // Go sort.Sort(sort.Reverse(sort.StringSlice)): byte order, reversed (keys are ASCII).
  const index = [...byKey.keys()].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const found = index.filter((k) => matchPattern(k, repository).match).flatMap((k) => byKey.get(k)!);
  if (found.length > 0) return found;
  if (isDefaultRegistryMatch(repository)) return byKey.get('index.docker.io') ?? [];
  return [];
}

function entriesOf(source: string, auths: Record<string, Credential>): Entry[] {
  return Object.entries(auths).flatMap(([authKey, credential]) => {
    const key = authKeyToKeyringKey(authKey);
    return key === undefined ? [] : [{ source, key, credential }];
  });
}

export function predictPull(c: PullCase): PullPrediction {
  const repository = normalizeImage(c.image).repository;
  const secrets = c.secrets.filter((s) => s.exists !== false);
  const missing = c.secrets.filter((s) => s.exists === false).map((s) => s.name);
  const fromSecrets = keyringLookup(
    secrets.flatMap((s) => entriesOf(`secret ${s.name}`, s.auths)),
    repository,
  );
  const providers = (c.providers ?? []).filter((p) => p.matchImages.some((m) => matchImage(m, c.image).match));
  const fromNode = keyringLookup(entriesOf('node config.json', c.node ?? {}), repository);
  const fromProviders = keyringLookup(
    providers.flatMap((p) => entriesOf(`provider ${p.name}`, p.auths)),
    repository,
  );
  const offered = [...fromSecrets, ...fromNode, ...fromProviders];
  const notes =
    missing.length > 0 ? ` (missing secret${missing.length > 1 ? 's' : ''} ${missing.join(', ')} skipped)` : '';

  if (offered.length === 0) {
    const pull = c.publicImage ? 'success' : 'failure';
    return {
      pull,
      attempts: [],
      because: `no credential matches ${repository}${notes}: one anonymous pull, which ${c.publicImage ? 'works (public image)' : 'the registry refuses'}`,
    };
  }
  const attempts: Attempt[] = [];
  for (const e of offered) {
    attempts.push({ source: e.source, username: e.credential.username, works: e.credential.works });
    if (e.credential.works) {
      return {
        pull: 'success',
        attempts,
        usedBy: e.source,
        because: `credentials tried in order ${show(attempts)}${notes}: the pull stops at the first that works`,
      };
    }
  }
  return { pull: 'failure', attempts, because: `credentials tried in order ${show(attempts)}${notes}: none works` };
}

function show(attempts: Attempt[]): string {
  return attempts.map((a) => `${a.source} (${a.works ? 'works' : 'refused'})`).join(' → ');
}
