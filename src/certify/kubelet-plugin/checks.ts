// The kubelet image credential provider contract, one Check per requirement.
// Each `source` names where the requirement comes from, so a vendor reading a
// failure knows it is the kubelet's rule and not credprov's taste.
import type { Check } from '../../report/model.ts';

const check = (id: string, level: Check['level'], title: string, source: string): Check => ({
  id,
  title,
  level,
  source,
});

export const KP_EXEC = check(
  'KP-EXEC',
  'MUST',
  'runs as <bin-dir>/<provider name> and exits 0 for an image its matchImages cover',
  "KEP-2133: the kubelet execs <image-credential-provider-bin-dir>/<name> with the request on stdin; a non-zero exit is an error and the pull goes on without the plugin's credentials",
);
export const KP_STDOUT = check(
  'KP-STDOUT-ONLY-JSON',
  'MUST',
  'stdout holds exactly one JSON response object and nothing else',
  'KEP-2133 / kubelet plugin.go: the whole of stdout is decoded as one CredentialProviderResponse; logs, banners or a second object make the decode fail',
);
export const KP_RESPONSE_SIZE = check(
  'KP-RESPONSE-SIZE',
  'SHOULD',
  'the response stays under 1 MiB',
  'kubelet plugin.go reads all of stdout into memory and caches the decoded auth map; on every pull of an image the provider matches, externalCredentialProviderKeyring.Lookup adds that map to a new BasicDockerKeyring (url.Parse of every key, then a sort) and matches the image against every key (keyring.go): the cost grows with the answer, pull after pull',
);
export const KP_APIVERSION = check(
  'KP-APIVERSION',
  'MUST',
  "answers in the provider's configured apiVersion",
  'KEP-2133: the response apiVersion must equal the provider entry\'s apiVersion ("apiVersion from credential plugin response did not match expected apiVersion")',
);
export const KP_KIND = check(
  'KP-KIND',
  'MUST',
  'answers with kind CredentialProviderResponse',
  "KEP-2133 wire types: the response kind is CredentialProviderResponse; any other kind fails the kubelet's decode",
);
export const KP_STRICT = check(
  'KP-STRICT-DECODE',
  'MUST',
  'the response has no unknown or duplicate fields, and auth maps image patterns to a username and password given as strings',
  'Kubernetes 1.32+ (k/k PR #128062): the kubelet decodes plugin responses strictly; unknown or duplicate fields are errors',
);
export const KP_CACHE_KEY_TYPE = check(
  'KP-CACHE-KEY-TYPE',
  'MUST',
  'sets cacheKeyType to Image, Registry or Global',
  'KEP-2133: cacheKeyType is required; when it is empty or invalid the kubelet logs "credential provider plugin did not return a valid cacheKeyType" and uses no credentials from the response',
);
export const KP_CACHE_DURATION = check(
  'KP-CACHE-DURATION',
  'MUST',
  'cacheDuration, when present, is a duration string the kubelet can parse',
  'KEP-2133 wire types: cacheDuration is a metav1.Duration (Go time.ParseDuration syntax, e.g. "5m", "1h30m")',
);
export const KP_AUTH_MATCHES = check(
  'KP-AUTH-MATCHES-IMAGE',
  'MUST',
  'returns at least one auth entry whose key matches the requested image',
  'KEP-2133: auth keys are image patterns matched like matchImages (host globs per label, exact port, path prefix); the kubelet silently ignores entries that do not match the image',
);
export const KP_FAILURE_EXPLAINED = check(
  'KP-FAILURE-EXPLAINED',
  'SHOULD',
  'asked for an image outside its matchImages, or sent a malformed request, it fails with a reason on stderr or answers with a valid response',
  'KEP-2133 / k/k PR #117448: the kubelet logs "exit status N: <stderr>" for a failing plugin; stderr is the only explanation an operator gets, and a plugin that exits 0 without a valid response leaves only "error decoding credential provider plugin response from stdout"',
);
export const KP_TIMEOUT = check(
  'KP-TIMEOUT',
  'MUST',
  'answers every request within the timeout',
  'kubelet plugin.go: a plugin run is cancelled after 1 minute ("context deadline exceeded") and the pull goes on without its credentials',
);
export const KP_NO_STDOUT_HOLDER = check(
  'KP-NO-STDOUT-HOLDER',
  'MUST',
  'leaves no process holding its stdout or stderr once it exits',
  'kubelet plugin.go runs the plugin with exec.CommandContext (1 minute) and no WaitDelay: cmd.Wait reads stdout and stderr to their end. Observed on the real kubelet v1.37.1 (test/e2e/stdout-holder-live.e2e.test.ts): the pull waits until the holder exits, the timeout does not cut it short, and the kubelet never kills the holder; a holder gone within the minute only delays the pull (15 s), one that outlives it (75 s) makes the kubelet throw the plugin\'s valid answer away ("context deadline exceeded", plugin error counter +1) and pull without its credentials (401, ErrImagePull)',
);
export const KP_NO_LEFTOVER_PROCESSES = check(
  'KP-NO-LEFTOVER-PROCESSES',
  'SHOULD',
  'leaves no process running once it exits',
  'KEP-2133: the kubelet execs the plugin for every pull it has no cached credentials for and never stops what the plugin started, so processes left behind pile up on the node',
);
export const KP_CONCURRENCY = check(
  'KP-CONCURRENCY',
  'MUST',
  'concurrent invocations all succeed and give the answers sequential ones gave',
  'kubelet: pulls of different images run in parallel (serializeImagePulls: false, maxParallelImagePulls) and singleflight coalesces only identical requests, so plugin processes overlap',
);
export const KP_SA_TOKEN_NOT_ECHOED = check(
  'KP-SA-TOKEN-NOT-ECHOED',
  'MUST',
  'does not return the service account token as a password unless tokenAttributes.cacheType is Token',
  'KEP-4412, kubelet 1.34+: when any auth password equals the service account token and cacheType is not Token, the kubelet logs "Credential provider plugin returned the service account token as the password" and uses no credentials from the response',
);

/** In report order. */
export const KUBELET_PLUGIN_CHECKS: Check[] = [
  KP_EXEC,
  KP_STDOUT,
  KP_RESPONSE_SIZE,
  KP_APIVERSION,
  KP_KIND,
  KP_STRICT,
  KP_CACHE_KEY_TYPE,
  KP_CACHE_DURATION,
  KP_AUTH_MATCHES,
  KP_FAILURE_EXPLAINED,
  KP_TIMEOUT,
  KP_NO_STDOUT_HOLDER,
  KP_NO_LEFTOVER_PROCESSES,
  KP_CONCURRENCY,
  KP_SA_TOKEN_NOT_ECHOED,
];
