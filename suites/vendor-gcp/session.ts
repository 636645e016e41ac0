// What the vendor-gcp cases share while they run, one after another: the lab,
// and pods whose window holds the plugin execs, metadata requests and registry
// logins of their own (which is why the cases never run side by side), read
// the way predict.ts states them.
import {
  runPodWatching,
  uniqueSuffix,
  type CaseContext,
  type Evidence,
  type GcpLab,
  type MetadataRecord,
  type RegistryLogin,
  type WrappedInvocation,
} from '../../src/run/kit.ts';
import { POD_TIMEOUT_MS, type PlannedImage } from './plan.ts';
import { requestLine, type PullView } from './predict.ts';

export interface GcpWindow {
  image: PlannedImage;
  pull: 'success' | 'failure';
  failure?: string;
  createdAt: number;
  doneAt: number;
  execs: WrappedInvocation[];
  metadata: MetadataRecord[];
  logins: RegistryLogin[];
  podEvidence: Evidence[];
}

/** Runs one pod of `image` in the case's namespace; its window of execs, metadata requests and logins. */
export async function pullIn(
  ctx: CaseContext,
  lab: GcpLab,
  image: PlannedImage,
  o: { timeoutMs?: number } = {},
): Promise<GcpWindow> {
  const namespace = await ctx.namespace('gcp');
  const w = await runPodWatching(
    ctx.environment,
    {
      name: `gcp-${uniqueSuffix(ctx.clock)}`,
      namespace,
      image: image.ref,
      pullPolicy: 'Always',
      timeoutMs: o.timeoutMs ?? POD_TIMEOUT_MS,
    },
    { execs: () => lab.execs(), metadata: () => lab.metadata(), logins: () => lab.logins() },
    ctx.clock,
  );
  return {
    image,
    pull: w.run.pull,
    ...(w.run.failure ? { failure: w.run.failure } : {}),
    createdAt: w.createdAt,
    doneAt: w.doneAt,
    execs: w.added.execs,
    metadata: w.added.metadata,
    logins: w.added.logins,
    podEvidence: w.run.evidence,
  };
}

/** A window as predict.ts's PullView. */
export function viewOf(w: GcpWindow): PullView {
  return {
    invoked: w.execs.map((e) => e.provider),
    metadata: w.metadata.map((m) => requestLine(m.path, m.flavor, m.status)),
    logins: [...new Set(w.logins.map((l) => `${l.username} ${l.verdict}`))],
    pull: w.pull,
  };
}

export function showViews(views: PullView[]): string {
  return views
    .map(
      (v, i) =>
        `pod ${i + 1}: ${v.invoked.length ? `exec ${v.invoked.join(', ')}` : 'no exec'}, ` +
        `${v.metadata.length} metadata request${v.metadata.length === 1 ? '' : 's'}` +
        `${v.metadata.length ? ` (${v.metadata.map((m) => m.replace(/^GET \/computeMetadata\/v1\/instance\//, '')).join('; ')})` : ''}, ` +
        `login ${v.logins.join(', ') || 'none'}, pull ${v.pull}`,
    )
    .join(' | ');
}

export function windowEvidence(lab: GcpLab, windows: GcpWindow[]): Evidence[] {
  return [
    ...lab.evidence({
      execs: windows.flatMap((w) => w.execs),
      metadata: windows.flatMap((w) => w.metadata),
      logins: windows.flatMap((w) => w.logins),
    }),
    ...windows.flatMap((w) => w.podEvidence),
  ];
}

/** When the token the window's exec was handed expires (ms), from the metadata server's own record. */
export function tokenExpiry(w: GcpWindow): number | undefined {
  const t = [...w.metadata].reverse().find((m) => m.token);
  return t?.token ? Date.parse(t.time) + t.token.expiresIn * 1000 : undefined;
}
