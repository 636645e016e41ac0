// credprov's model of auth-provider-gcp (kubernetes/cloud-provider-gcp@d74b2e1d6653,
// cmd/auth-provider-gcp and pkg/gcpcredential), the kubelet image credential
// provider GKE nodes run for gcr.io and Artifact Registry: from a
// CredentialProviderRequest and what the GCE metadata server answers, the
// requests it makes and the response it prints. Read from the source, and
// confirmed on the real binary against a fake metadata server (2026-11-29).
//
// - `get-credentials [--authFlow gcr|dockercfg|dockercfg-url]` (app/getcredentials.go:44-46,
//   default gcr; another value: exit 1 before anything runs, getcredentials.go:140-145).
//   The request's apiVersion is not checked; only `image` is read, and no flow uses it.
// - It reaches the metadata server at the hard-coded
//   http://metadata.google.internal./computeMetadata/v1/ (gcpcredential.go:33) with
//   `Metadata-Flavor: Google` (:57-59) through its own http.Client (10 s timeout,
//   provider.go:31), NOT cloud.google.com/go/compute/metadata: GCE_METADATA_HOST is not
//   honoured. A fake is reached by a hosts mapping of metadata.google.internal to a
//   loopback address (port 80, plain HTTP), or by HTTP_PROXY in the provider's env
//   (utilnet.SetTransportDefaults keeps http.ProxyFromEnvironment, getcredentials.go:96):
//   the proxy then gets absolute-form URIs, Host `metadata.google.internal.` (trailing dot).
// - gcr (gcpcredential.go:235-267): GET …/service-accounts/default/token, then …/email;
//   any non-200, transport error or unparsable token JSON ⇒ no auth at all (exit 0).
//   Otherwise auth has one entry per containerRegistryUrls (:55) — container.cloud.google.com,
//   gcr.io, *.gcr.io, *.pkg.dev — whatever the image, each {username "_token",
//   password access_token} (a token JSON without access_token gives an empty password).
//   ContainerRegistryProvider.Enabled (the scopes check) is never called.
// - dockercfg (:120-130): GET …/instance/attributes/google-dockercfg, parsed as a legacy
//   .dockercfg map (credentialconfig/config.go:237-242; an entry's `auth`, base64
//   "user:password", wins over username/password, :267-284); its keys are the auth keys.
// - dockercfg-url (:133-151): GET …/attributes/google-dockercfg-url; a body starting with
//   "http" is fetched WITHOUT the Metadata-Flavor header and parsed the same way.
// - cacheKeyType from KUBE_SIDECAR_CACHE_TYPE (provider.go:92-108: unset/image → Image,
//   registry → Registry, global → Global, else exit 1 `Unknown cache key "x"`); cacheDuration
//   from KUBE_SIDECAR_CACHE_DURATION (:77-90, Go duration; unset → 0s, which the kubelet
//   never caches; unparsable → exit 1). Both are read after the metadata calls
//   (GetResponse :111-129). The token's expires_in is never read: the kubelet may keep a
//   token past its expiry when the env's duration is longer than the token's life.
// - Output: one JSON line; `auth` is left out when empty (omitempty); errors exit 1 with
//   cobra's "Error: …" plus usage on stderr (SilenceUsage unset).
//
// What a fake GCE metadata server must check, as the real one does: the
// Metadata-Flavor: Google header (403 without it), no X-Forwarded-For (403),
// GET only; the token answer is {access_token, expires_in, token_type: "Bearer"}.
import type { AuthConfig, CacheKeyType, CredentialProviderResponse } from '../api/credentialprovider/types.ts';
import { formatGoDuration, parseGoDurationNs } from '../api/credentialprovider/goduration.ts';

export const GCP_AUTH_FLOWS = ['gcr', 'dockercfg', 'dockercfg-url'] as const;
export type GcpAuthFlow = (typeof GCP_AUTH_FLOWS)[number];
/** The host the plugin asks, as it writes it (gcpcredential.go:33). */
export const GCE_METADATA_HOST = 'metadata.google.internal.';
export const GCE_METADATA_BASE = `http://${GCE_METADATA_HOST}/computeMetadata/v1/`;
export const GCE_METADATA_FLAVOR = { name: 'Metadata-Flavor', value: 'Google' } as const;
export const GCE_TOKEN_PATH = '/computeMetadata/v1/instance/service-accounts/default/token';
export const GCE_EMAIL_PATH = '/computeMetadata/v1/instance/service-accounts/default/email';
export const GCE_DOCKERCFG_PATH = '/computeMetadata/v1/instance/attributes/google-dockercfg';
export const GCE_DOCKERCFG_URL_PATH = '/computeMetadata/v1/instance/attributes/google-dockercfg-url';
/** The auth keys of the gcr flow, in every answer (gcpcredential.go:55). */
export const GCR_AUTH_KEYS = ['container.cloud.google.com', 'gcr.io', '*.gcr.io', '*.pkg.dev'] as const;
/** The username it sends with the metadata server's access token. */
export const GCR_USERNAME = '_token';
/** The provider entry GCE nodes get (cluster/gce/gci/configure.sh:609-624). */
export const GCE_NODE_PROVIDER = {
  name: 'auth-provider-gcp',
  apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
  matchImages: [...GCR_AUTH_KEYS],
  args: ['get-credentials', '--v=3'],
  defaultCacheDuration: '1m',
} as const;

/** One metadata (or dockercfg URL) answer; 'unreachable' is a transport error. */
export type MetadataAnswer = { status: number; body: string } | 'unreachable';

export interface GcpPluginInput {
  flow?: GcpAuthFlow | string;
  /** The provider's env as the plugin sees it (only the two KUBE_SIDECAR_* variables matter). */
  env?: Record<string, string | undefined>;
  /** What the server answers for an absolute URL (metadata or the dockercfg URL). */
  answer(url: string): MetadataAnswer;
}

export interface GcpRequestMade {
  url: string;
  /** Whether it carried Metadata-Flavor: Google. */
  metadataFlavor: boolean;
}

export type GcpPrediction =
  | { exitCode: 0; requests: GcpRequestMade[]; response: CredentialProviderResponse; notes: string[] }
  | { exitCode: 1; requests: GcpRequestMade[]; error: string };

const CACHE_TYPES: Record<string, CacheKeyType> = {
  '': 'Image',
  image: 'Image',
  registry: 'Registry',
  global: 'Global',
};

export function predictGcpPlugin(input: GcpPluginInput): GcpPrediction {
  const flow = input.flow ?? 'gcr';
  const requests: GcpRequestMade[] = [];
  if (!(GCP_AUTH_FLOWS as readonly string[]).includes(flow))
    return {
      exitCode: 1,
      requests,
      error: `invalid value "${flow}" for authFlow (must be one of "gcr", "dockercfg", or "dockercfg-url")`,
    };
  const notes: string[] = [];
  const get = (url: string, metadataFlavor = true): string | undefined => {
    requests.push({ url, metadataFlavor });
    const a = input.answer(url);
    if (a === 'unreachable') return void notes.push(`${url}: unreachable`);
    if (a.status !== 200) return void notes.push(`${url}: http status code: ${a.status}`);
    return a.body;
  };
  const auth = provide(flow as GcpAuthFlow, get, notes);
  const env = input.env ?? {};
  const durationText = env.KUBE_SIDECAR_CACHE_DURATION ?? '';
  let cacheDuration = '0s';
  if (durationText !== '') {
    const d = parseGoDurationNs(durationText);
    if (!d.ok)
      return { exitCode: 1, requests, error: `error getting authentication response from provider: ${d.error}` };
    cacheDuration = formatGoDuration(d.ns);
  }
  const cacheKeyType = CACHE_TYPES[env.KUBE_SIDECAR_CACHE_TYPE ?? ''];
  if (!cacheKeyType)
    return {
      exitCode: 1,
      requests,
      error: `error getting authentication response from provider: Unknown cache key "${env.KUBE_SIDECAR_CACHE_TYPE}"`,
    };
  const response: CredentialProviderResponse = {
    kind: 'CredentialProviderResponse',
    apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
    cacheKeyType,
    cacheDuration,
    ...(Object.keys(auth).length > 0 ? { auth } : {}),
  };
  return { exitCode: 0, requests, response, notes };
}

type Get = (url: string, metadataFlavor?: boolean) => string | undefined;

function provide(flow: GcpAuthFlow, get: Get, notes: string[]): Record<string, AuthConfig> {
  const base = `http://${GCE_METADATA_HOST}`;
  if (flow === 'gcr') {
    const tokenBody = get(base + GCE_TOKEN_PATH);
    if (tokenBody === undefined) return {};
    const email = get(base + GCE_EMAIL_PATH);
    if (email === undefined) return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(tokenBody);
    } catch {
      notes.push('the token answer is not JSON');
      return {};
    }
    const token = goString((parsed as { access_token?: unknown } | null)?.access_token);
    if (token === undefined) {
      notes.push('access_token is not a string');
      return {};
    }
    return Object.fromEntries(GCR_AUTH_KEYS.map((k) => [k, { username: GCR_USERNAME, password: token }]));
  }
  if (flow === 'dockercfg') {
    const body = get(base + GCE_DOCKERCFG_PATH);
    return body === undefined ? {} : parseDockercfg(body, notes);
  }
  const url = get(base + GCE_DOCKERCFG_URL_PATH);
  if (url === undefined) return {};
  if (!url.startsWith('http')) {
    notes.push(`Unsupported URL scheme: ${url}`);
    return {};
  }
  const body = get(url, false);
  return body === undefined ? {} : parseDockercfg(body, notes);
}

/** encoding/json into a Go string: absent or null is "", anything else but a string fails the whole object. */
function goString(v: unknown): string | undefined {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : undefined;
}

/** A legacy .dockercfg ({host: {username, password, email, auth}}), as credentialconfig reads it. */
export function parseDockercfg(body: string, notes: string[] = []): Record<string, AuthConfig> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    notes.push('error occurred while trying to unmarshal json');
    return {};
  }
  if (parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    notes.push('error occurred while trying to unmarshal json');
    return {};
  }
  const out: Record<string, AuthConfig> = {};
  for (const [key, raw] of Object.entries(parsed as Record<string, unknown>)) {
    const e = (raw ?? {}) as Record<string, unknown>;
    const fields = ['username', 'password', 'auth'].map((f) => goString(e[f]));
    if (typeof raw !== 'object' || Array.isArray(raw) || fields.some((f) => f === undefined)) {
      notes.push('error occurred while trying to unmarshal json');
      return {};
    }
    let [username, password] = fields as [string, string, string];
    const auth = fields[2]!;
    if (auth) {
      // config.go:296-323: strict base64 (padded or not), split at the first colon.
      const decoded = /^[A-Za-z0-9+/]*={0,2}$/.test(auth) ? Buffer.from(auth, 'base64').toString('utf8') : undefined;
      const i = decoded?.indexOf(':') ?? -1;
      if (decoded === undefined || i < 0) {
        notes.push('error occurred while trying to unmarshal json');
        return {};
      }
      [username, password] = [decoded.slice(0, i), decoded.slice(i + 1)];
    }
    out[key] = { username, password };
  }
  return out;
}

/**
 * How long the kubelet may keep using a token the plugin answered: the response's cacheDuration
 * against the token's own life (expires_in). Positive: the kubelet would pull with an expired
 * token for that long (the plugin never relates the two).
 */
export function staleTokenWindowMs(cacheDuration: string, tokenExpiresInSeconds: number): number {
  const d = parseGoDurationNs(cacheDuration);
  if (!d.ok) return 0;
  return Math.max(0, Number(d.ns / 1_000_000n) - tokenExpiresInSeconds * 1000);
}
