// The field-bug parts on the real kubelet (predictions in predict-hub.ts), played
// between two policies while the kubelet keeps the policy before them:
// - after the default policy: the cross-namespace story of k/k #137024 (and,
//   from its record, #135369/#136558 and #137629's record names);
// - after the allowlist policy: the familiar-name allowlist of #137629, and
//   the kubelet binary's own validation of each entry.
import { join } from 'node:path';
import { recordFileName } from '../../src/model/ensure-secret-pulled.ts';
import {
  applyObjects,
  deletePodBatch,
  importImages,
  judge,
  kubeletEvidence,
  multiImageArchive,
  pullSecret,
  readRecord,
  runPodBatch,
  serviceAccount,
  sleep,
  step,
  type BatchPod,
  type Case,
  type CheckResult,
  type ContainerRun,
} from '../../src/run/kit.ts';
import { PHASES } from './plan-cells.ts';
import { ALLOWLIST_FAMILIAR, HUB_CROSS_NAMESPACE, RECORD_IMAGE_NAMES, RECORD_REF } from './checks.ts';
import {
  crossIds,
  HUB_HOST,
  keyedByOf,
  predictAllow,
  predictAllowCells,
  predictCross,
  predictCrossViews,
  predictEntryValidation,
  type AllowView,
  type CrossNamespacePods,
  type HubPlan,
} from './predict-hub.ts';
import { validateAllowlistEntries } from './kubelet-validation.ts';
import { PHASE_TIMEOUT_MS } from './plan.ts';
import { cellView } from './predict.ts';
import type { Story } from './story.ts';

/** How long a ServiceAccount change may take to reach the admission plugin's informer. */
const SA_PROPAGATION_MS = 1_500;

const pod = (name: string, image: string, pullPolicy: 'IfNotPresent' | 'Never'): BatchPod => ({
  name,
  containers: [{ name: 'main', image, pullPolicy }],
});
const outcome = (runs: Map<string, { containers: Map<string, ContainerRun> }>, name: string) =>
  cellView(runs.get(name)?.containers.get('main'));
const eventsOf = (runs: Map<string, { containers: Map<string, ContainerRun> }>, name: string) =>
  runs.get(name)?.containers.get('main')?.events ?? [];

/** After the default policy's part: pods A, A2, A3 in namespace A, pod B in namespace B. */
export const hubCrossCase = (story: Story, hub: HubPlan): Case => ({
  checks: [HUB_CROSS_NAMESPACE, RECORD_REF, RECORD_IMAGE_NAMES],
  run: async (ctx): Promise<CheckResult[]> => {
    // The kubelet must still run the default policy: the part before must have been played.
    story.need(story.phases[1], `policy ${PHASES[1]!.policy}`);
    const { ids, kubelet, imageManager } = story.fixture;
    const env = story.env;
    const nsA = await ctx.namespace('credprov-espi-xns-a');
    const nsB = await ctx.namespace('credprov-espi-xns-b');
    const [secret, sa] = await applyObjects(env, [
      pullSecret({ name: 'regcred', namespace: nsA, auths: { [HUB_HOST]: ids.right } }),
      // Admission copies the default ServiceAccount's imagePullSecrets into every pod of the namespace.
      serviceAccount(nsA, 'default', ['regcred']),
    ]);
    const pods: CrossNamespacePods = {
      a: {
        namespace: nsA,
        serviceAccount: { name: 'default', uid: sa!.metadata!.uid! },
        secrets: [
          { name: 'regcred', uid: secret!.metadata!.uid!, auths: { [HUB_HOST]: { ...ids.right, works: true } } },
        ],
      },
      b: { namespace: nsB, secrets: [] },
    };
    // ServiceAccount admission reads the SA from its informer: give the update a moment to reach it.
    await sleep(SA_PROPAGATION_MS);
    const predicted = predictCross(hub, kubelet, pods);
    story.outsideRecords.push({ fromPhase: 2, created: predicted.podA.recordCreated ? 1 : 0 });
    const views = predictCrossViews(hub, predicted, cellView);

    const img = hub.cross;
    const { first, inA, inB } = await step(
      ctx.progress,
      'k/k #137024: pods A, A2, A3 and B in two namespaces',
      async () => {
        const first = await runPodBatch(env, nsA, 'xns-a', [pod('xns-a', img.ref, 'IfNotPresent')], PHASE_TIMEOUT_MS);
        const [inA, inB] = await Promise.all([
          runPodBatch(
            env,
            nsA,
            'xns-a2',
            [pod('xns-a2', img.ref, 'IfNotPresent'), pod('xns-a3', img.full, 'Never')],
            PHASE_TIMEOUT_MS,
          ),
          runPodBatch(env, nsB, 'xns-b', [pod('xns-b', img.ref, 'IfNotPresent')], PHASE_TIMEOUT_MS),
        ]);
        // Pod B's retries would count in the next policy's mustpull metrics.
        await deletePodBatch(env, nsB, 'xns-b');
        return { first, inA, inB };
      },
    );
    // Read under both refs: the model says which one the kubelet used, the files say which it did.
    const refs = crossIds(hub);
    const byId = await readRecord(imageManager, recordFileName(refs.id));
    const byRepoDigest = await readRecord(imageManager, recordFileName(refs.repoDigest));
    const record = byId ?? byRepoDigest;
    const keyedBy = keyedByOf(byId ? refs.id : byRepoDigest ? refs.repoDigest : undefined, refs);

    const evidence = [
      { kind: 'data' as const, label: `pulled record of ${img.ref}`, data: record ?? 'none' },
      { kind: 'event' as const, label: `events of pod ${nsA}/xns-a`, data: eventsOf(first, 'xns-a') },
      { kind: 'event' as const, label: `events of pod ${nsB}/xns-b`, data: eventsOf(inB, 'xns-b') },
    ];
    ctx.onFailure(() => kubeletEvidence(env, ['xns-a', 'xns-b', img.ref]));
    const mapping = (record?.credentialMapping ?? {}) as Record<string, unknown>;
    return [
      judge(HUB_CROSS_NAMESPACE, {
        prediction: views.cross,
        observed: { podA: outcome(first, 'xns-a'), podB: outcome(inB, 'xns-b') },
        show: (v) => `pod A (${nsA}, SA imagePullSecrets): ${v.podA}; pod B (${nsB}, no credentials): ${v.podB}`,
        evidence,
      }),
      judge(RECORD_REF, {
        prediction: views.ref,
        observed: { recordKeyedBy: keyedBy, sameSecretPod: outcome(inA, 'xns-a2') },
        show: (v) => `record named after the ${v.recordKeyedBy}; pod A2 (same secret): ${v.sameSecretPod}`,
        evidence: [
          evidence[0]!,
          { kind: 'event', label: `events of pod ${nsA}/xns-a2`, data: eventsOf(inA, 'xns-a2') },
        ],
      }),
      judge(RECORD_IMAGE_NAMES, {
        prediction: views.names,
        observed: { credentialMappingKeys: Object.keys(mapping), fullNameNever: outcome(inA, 'xns-a3') },
        show: (v) =>
          `credentialMapping keys ${JSON.stringify(v.credentialMappingKeys)}; ${img.full} with Never: ${v.fullNameNever}`,
        evidence: [
          evidence[0]!,
          { kind: 'event', label: `events of pod ${nsA}/xns-a3`, data: eventsOf(inA, 'xns-a3') },
        ],
      }),
    ];
  },
});

/** After the allowlist policy's part: the preloaded familiar-name images, and the kubelet binary's validation. */
export const hubAllowlistCase = (story: Story, hub: HubPlan): Case => ({
  checks: [ALLOWLIST_FAMILIAR],
  run: async (ctx): Promise<CheckResult> => {
    story.need(story.phases[2], `policy ${PHASES[2]!.policy}`);
    const { kubelet, allowlist } = story.fixture;
    const env = story.env;
    const namespace = await ctx.namespace('credprov-espi-allow');
    const validation = predictEntryValidation(hub, kubelet);
    const cells = predictAllowCells(hub, kubelet, allowlist, { namespace, secrets: [] });
    const prediction = predictAllow(hub, validation, cells, cellView);

    const { runs, checked } = await step(
      ctx.progress,
      'k/k #137629: familiar-name allowlist pods and validation',
      async () => {
        await importImages(
          env,
          multiImageArchive(hub.allow.map((c) => ({ image: c.hub.image, ref: c.hub.full }))),
          join(ctx.artifactsDir, 'hub-preloaded.tar'),
        );
        const runs = await runPodBatch(
          env,
          namespace,
          'allow',
          hub.allow.map((c) => pod(`allow-${c.key}`, c.hub.ref, 'Never')),
          PHASE_TIMEOUT_MS,
        );
        const checked = await validateAllowlistEntries(
          env,
          hub.allow.map((c) => c.entry),
          ctx,
        );
        return { runs, checked };
      },
    );
    const observed: AllowView = {
      validation: checked.verdicts,
      pods: Object.fromEntries(hub.allow.map((c) => [c.key, outcome(runs, `allow-${c.key}`)])),
    };
    return judge(ALLOWLIST_FAMILIAR, {
      prediction,
      observed,
      show: (v) =>
        hub.allow
          .map((c) => `${c.hub.ref} ↔ ${c.entry} (${v.validation[c.entry] ?? '?'}): ${v.pods[c.key] ?? '?'}`)
          .join('; '),
      evidence: [
        { kind: 'data', label: 'the allowlist the kubelet runs with', data: allowlist },
        {
          kind: 'data',
          label: `the kubelet binary's validation of each entry (${checked.binary})`,
          data: checked.outputs,
        },
        ...hub.allow.map((c) => ({
          kind: 'event' as const,
          label: `events of pod ${namespace}/allow-${c.key}`,
          data: eventsOf(runs, `allow-${c.key}`),
        })),
      ],
      ...(checked.invalidBecause ? { invalidBecause: checked.invalidBecause } : {}),
    });
  },
});
