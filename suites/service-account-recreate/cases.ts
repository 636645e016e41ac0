// The service-account-recreate story: six pods of one ServiceAccount in
// order, around a delete-and-recreate (a new UID) and a re-annotation (a new
// role, and the fake then answering a password the registry refuses). Each
// pod's prediction is made before the story starts (UIDs are the only input
// the API server supplies), then each pod is observed: the plugin's execs
// while it started, the role it was sent, how it ended, whether it pulled.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import {
  applyObjects,
  countEvents,
  deleteServiceAccount,
  grantNodesAudience,
  imageManagerDir,
  judge,
  kubeletEvidence,
  kubeletVersionOf,
  podEvents,
  readRecords,
  since,
  uidOf,
  waitFor,
  waitForPodOutcome,
  type Case,
  type CaseContext,
  type CheckResult,
  type FakeInvocation,
  type Fleet,
  type ScenarioFile,
} from '../../src/run/kit.ts';
import {
  ANNOTATION_CACHE_MISS,
  ANNOTATION_NOT_REVERIFIED,
  RECREATED_CACHE_MISS,
  RECREATED_REVERIFIED,
  RECREATED_TOKEN,
  SAR_CHECKS,
} from './checks.ts';
import {
  POD_TIMEOUT_MS,
  PROVIDER,
  podManifest,
  ROLE_KEY,
  ROLES,
  SA_NAME,
  serviceAccountManifest,
  STEPS,
} from './plan.ts';
import { MODEL, predictStory, type PodSeen } from './predict.ts';

export interface Story {
  fleet: Fleet;
  host: string;
  image: string;
  audience: string;
  tokensDir: string;
  /** The fake's answer after the re-annotation: a password the registry refuses. */
  refused: ScenarioFile;
}

export function storyCase(s: Story): Case {
  return { checks: SAR_CHECKS, needs: ['kubeletFiles'], run: (ctx) => play(ctx, s) };
}

async function play(ctx: CaseContext, s: Story): Promise<CheckResult[]> {
  const env = ctx.environment;
  const namespace = await ctx.namespace('sar');
  await grantNodesAudience(env, s.audience, {}, ctx);
  const saUid = (not?: string) =>
    waitFor(
      `ServiceAccount ${namespace}/${SA_NAME}${not ? ' recreated' : ''}`,
      async () => {
        const uid = await uidOf(env, 'ServiceAccount', SA_NAME, namespace);
        return uid && uid !== not ? uid : undefined;
      },
      { timeoutMs: 30_000, clock: ctx.clock },
    );
  await applyObjects(env, [serviceAccountManifest(namespace, ROLES.first)]);
  const first = await saUid();
  ctx.onFailure(() => kubeletEvidence(env, ['sar/app', 'credential provider']));
  const repository = s.image.replace(/:[^:/]+$/, '');
  const seen: PodSeen[] = [];
  const execs: FakeInvocation[][] = [];
  let second = '';
  let recordUids: string[] = [];
  for (const step of STEPS) {
    if (step.before === 'recreate') {
      await deleteServiceAccount(env, SA_NAME, namespace);
      await applyObjects(env, [serviceAccountManifest(namespace, ROLES.first)]);
      second = await saUid(first);
    }
    if (step.before === 'reannotate') {
      await applyObjects(env, [serviceAccountManifest(namespace, ROLES.after)]);
      await s.fleet.rescript(PROVIDER, s.refused);
    }
    const window = await since(() => s.fleet.invocations());
    await applyObjects(env, [podManifest(namespace, env.nodeName, step, s.image)]);
    const outcome = await waitForPodOutcome(env, step.pod, POD_TIMEOUT_MS, namespace);
    const mine = (await window.added()).filter((i) => i.image === repository);
    const events = await podEvents(env, step.pod, namespace);
    const reason =
      outcome.kind === 'completed'
        ? 'Running'
        : outcome.reason === 'ImagePullBackOff'
          ? 'ErrImagePull'
          : outcome.reason;
    const role = mine[0]?.request.serviceAccountAnnotations?.[ROLE_KEY];
    seen.push({
      execs: mine.length,
      ...(mine.length > 0 && role !== undefined ? { role } : {}),
      outcome: reason as PodSeen['outcome'],
      pulled: countEvents(events, 'Pulling') > 0,
    });
    execs.push(mine);
    if (step.pod === 'p4') {
      const records = await readRecords(imageManagerDir(env));
      const record = records.pulled.find((r) => r.json && repository in ((r.json.credentialMapping as object) ?? {}));
      const mapping = (
        record?.json?.credentialMapping as Record<string, { kubernetesServiceAccounts?: Array<{ uid: string }> }>
      )?.[repository];
      recordUids = (mapping?.kubernetesServiceAccounts ?? []).map((a) => a.uid).sort();
    }
  }
  const p = predictStory({
    kubeletVersion: kubeletVersionOf(env),
    namespace,
    host: s.host,
    image: s.image,
    audience: s.audience,
    uids: [first, second],
  });
  const because = (n: number[]) => n.map((i) => p.steps[i]!.because).join(' | ');
  const pick = <K extends keyof PodSeen>(v: PodSeen, keys: K[]) => Object.fromEntries(keys.map((k) => [k, v[k]]));
  const showSteps = (names: string[]) => (v: unknown) =>
    (v as unknown[]).map((x, n) => `${names[n]}: ${JSON.stringify(x)}`).join('; ');
  const p3Token = execs[2]?.[0];
  const uid = await tokenUid(s.tokensDir, p3Token);
  const sameAsFirst = (i: number[], keys: Array<keyof PodSeen>) => ({
    predicted: i.map((n) => pick(p.steps[n]!.seen, keys)),
    observed: i.map((n) => pick(seen[n]!, keys)),
  });
  const cache = sameAsFirst([0, 1, 2], ['execs']);
  const reverified = sameAsFirst([2, 3], ['outcome', 'pulled']);
  const annotation = sameAsFirst([4], ['execs', 'role']);
  const notReverified = sameAsFirst([4, 5], ['outcome', 'pulled']);
  return [
    judge(RECREATED_CACHE_MISS, {
      prediction: { value: cache.predicted, model: MODEL, because: because([0, 1, 2]) },
      observed: cache.observed,
      show: showSteps(['p1', 'p2', 'p3 (recreated)']),
    }),
    judge(RECREATED_TOKEN, {
      prediction: {
        value: p.token.uid,
        model: 'service-account-recreate.ts tokenAfterRecreate',
        because: p.token.because,
      },
      observed: uid === second ? 'new' : uid === first ? 'old' : `unknown (${uid ?? 'no token captured'})`,
      show: (v) => `the token names the ${v} ServiceAccount's UID`,
      ...(p3Token ? {} : { invalidBecause: "the plugin was not exec'd for p3 (SA-RECREATED-CACHE-MISS)" }),
    }),
    judge(RECREATED_REVERIFIED, {
      prediction: { value: [...reverified.predicted, p.steps[3]!.recordUids], model: MODEL, because: because([2, 3]) },
      observed: [...reverified.observed, recordUids],
      show: showSteps(['p3 Never', 'p4 IfNotPresent', 'record UIDs']),
    }),
    judge(ANNOTATION_CACHE_MISS, {
      prediction: { value: annotation.predicted, model: MODEL, because: because([4]) },
      observed: annotation.observed,
      show: showSteps(['p5 (role admin)']),
      evidence: [
        { kind: 'invocation', label: 'p5 execs', data: execs[4]?.map((i) => i.request.serviceAccountAnnotations) },
      ],
    }),
    judge(ANNOTATION_NOT_REVERIFIED, {
      prediction: { value: notReverified.predicted, model: MODEL, because: because([4, 5]) },
      observed: notReverified.observed,
      show: showSteps(['p5 Never', 'p6 Always']),
      note: "a role change does not revoke the node's copy: KEP-2535 records the ServiceAccount by UID (finding 23)",
    }),
  ];
}

/** The ServiceAccount UID in the token the fake captured for an exec. */
async function tokenUid(dir: string, exec: FakeInvocation | undefined): Promise<string | undefined> {
  if (!exec?.tokenSha256) return undefined;
  const jwt = await readFile(join(dir, `${exec.tokenSha256}.jwt`), 'utf8').catch(() => undefined);
  if (!jwt) return undefined;
  const claims = decodeJwt(jwt.trim()) as { 'kubernetes.io'?: { serviceaccount?: { uid?: string } } };
  return claims['kubernetes.io']?.serviceaccount?.uid;
}
