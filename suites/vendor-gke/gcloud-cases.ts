// The plugin's default provider, with the real gcloud (when installed): its
// token cache file, where it lands (#920), its reuse, a change of gcloud
// configuration under the same kube context (#1122), and a cached token revoked
// server-side. Each case has its own $HOME (so its own cache file) and counts
// gcloud's runs by the log file each invocation leaves in its CLOUDSDK_CONFIG.
import { join } from 'node:path';
import { GCLOUD_ACCOUNT_SWITCH, GCLOUD_REUSE, GCLOUD_STALE } from './checks.ts';
import {
  cacheSummary,
  callEvidence,
  clientGoSession,
  kubectlWith,
  tokenOf,
  whoami,
  withGcloud,
  type GcloudShared,
} from './gcloud-session.ts';
import { AFTER_REVOKE_MS, PROBE_PATH } from './plan.ts';
import {
  predictAccountSwitch,
  predictGcloudReuse,
  predictStale,
  type CachePlace,
  type StaleView,
} from './predict-gcloud.ts';
import { existing } from './session.ts';
import { answerOf, GKE_CACHE_FILE, judge, sleep, type Case } from '../../src/run/kit.ts';

export const gcloudReuseCase = (s: GcloudShared): Case =>
  withGcloud(GCLOUD_REUSE, s, async (g) => {
    const home = join(s.dir, 'gcloud', 'home-reuse');
    const first = await kubectlWith(s, g, home, 'gcloud-a', ['get', '--raw', PROBE_PATH]);
    const second = await kubectlWith(s, g, home, 'gcloud-a', ['get', '--raw', PROBE_PATH]);
    const beside = join(s.dir, 'gcloud', GKE_CACHE_FILE);
    const inHome = join(home, '.kube', GKE_CACHE_FILE);
    const found = await existing([inHome, beside]);
    const cacheAt: CachePlace = found.includes(inHome)
      ? '$HOME/.kube'
      : found.includes(beside)
        ? 'beside --kubeconfig'
        : 'none';
    const [t1, t2] = [tokenOf(first), tokenOf(second)];
    return judge(GCLOUD_REUSE, {
      prediction: predictGcloudReuse(),
      observed: {
        statuses: [first.status ?? 'none', second.status ?? 'none'],
        gcloudRuns: first.gcloudRuns + second.gcloudRuns,
        cacheAt,
        sameToken: t1 !== undefined && t1 === t2,
      },
      actor: 'gke-gcloud-auth-plugin (gcloud provider) under kubectl',
      show: (v) =>
        `HTTP ${v.statuses.join(', ')}; ${v.gcloudRuns} gcloud run(s); cache in ${v.cacheAt}; ${v.sameToken ? 'the same token' : 'different tokens'}`,
      evidence: [
        ...callEvidence('two kubectl calls as gcloud-a', [first, second], g),
        { kind: 'data', label: 'cache files found (the token reduced away)', data: await cacheSummary(found) },
      ],
    });
  });

export const gcloudAccountSwitchCase = (s: GcloudShared): Case =>
  withGcloud(GCLOUD_ACCOUNT_SWITCH, s, async (g) => {
    const home = join(s.dir, 'gcloud', 'home-switch');
    const a = await kubectlWith(s, g, home, 'gcloud-a', ['auth', 'whoami', '-o', 'json']);
    const b = await kubectlWith(s, g, home, 'gcloud-b', ['auth', 'whoami', '-o', 'json']);
    const first = whoami(a);
    const second = whoami(b);
    const userB = `credprov:exec:${s.lab.subjectOf('gcloud-b')}`;
    return judge(GCLOUD_ACCOUNT_SWITCH, {
      prediction: predictAccountSwitch(`credprov:exec:${s.lab.subjectOf('gcloud-a')}`),
      observed: { first, second, gcloudRunsSecond: b.gcloudRuns },
      actor: 'gke-gcloud-auth-plugin (gcloud provider) under kubectl, CLOUDSDK_CONFIG switched',
      show: (v) => `first ${v.first}, then ${v.second} (${v.gcloudRunsSecond} gcloud run(s) for the second)`,
      problems:
        second !== userB
          ? [
              `with CLOUDSDK_CONFIG naming ${s.lab.emailOf('gcloud-b')}, kubectl acted as ${second}: the cache ignores the gcloud configuration (cloud-provider-gcp#1122, fixed upstream by #1249 after this commit)`,
            ]
          : [],
      evidence: callEvidence('kubectl auth whoami as gcloud-a, then gcloud-b, one $HOME', [a, b], g),
    });
  });

/** Last of the gcloud cases: it revokes gcloud-a's tokens. */
export const gcloudStaleCase = (s: GcloudShared): Case =>
  withGcloud(GCLOUD_STALE, s, async (g, redactor) => {
    const home = join(s.dir, 'gcloud', 'home-stale');
    const warm = await kubectlWith(s, g, home, 'gcloud-a', ['get', '--raw', PROBE_PATH]);
    const cached = tokenOf(warm);
    const revoked = s.lab.fake.revoke({ subject: s.lab.subjectOf('gcloud-a') });
    await sleep(AFTER_REVOKE_MS);
    const after = await kubectlWith(s, g, home, 'gcloud-a', ['get', '--raw', PROBE_PATH]);
    const cg = await clientGoSession(s, g, home, redactor);
    const tokens = [...after.runs, ...cg.runs].map((r) => answerOf(r).token);
    const observed: StaleView = {
      kubectl: `${after.status ?? 'error'}/${after.runs.length}`,
      clientGo: cg.view,
      gcloudRuns: after.gcloudRuns + cg.gcloudRuns,
      sameToken: cached !== undefined && tokens.length > 0 && tokens.every((t) => t === cached),
    };
    return judge(GCLOUD_STALE, {
      prediction: predictStale(),
      observed,
      actor: 'gke-gcloud-auth-plugin (gcloud provider) under kubectl and client-go, its cached token revoked',
      show: (v) =>
        `kubectl ${v.kubectl}; client-go ${v.clientGo.join(' ')}; ${v.gcloudRuns} gcloud run(s); ${v.sameToken ? 'always the cached token' : 'another token'}`,
      invalidBecause: warm.status !== 200 ? `the warm-up call got ${warm.status ?? 'no answer'}, not 200` : undefined,
      problems: observed.sameToken
        ? [
            'every re-run after a 401 answered the same refused token from the cache (until 10 s before its expiry): client-go re-runs the plugin for nothing',
          ]
        : [],
      evidence: [
        { kind: 'data', label: 'revoked token fingerprints', data: revoked },
        ...callEvidence('kubectl as gcloud-a: warm-up, then after the revocation', [warm, after], g),
        { kind: 'data', label: 'client-go session', data: cg.steps },
      ],
    });
  });
