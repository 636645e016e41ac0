// What PP-LIMIT-RESPECTED reads off its observations: per image, when its
// pull was at the registry (from the first request the recording front
// received to the last it answered: within the kubelet's CRI PullImage call,
// so within its token), and when its pod was ready to pull (the end of its
// plugin exec: the lookup precedes the puller); then the most of either at
// once. Pure.
import type { FakeInvocation, RegistryRequest } from '../../src/run/kit.ts';

export interface Span {
  key: string;
  from: number;
  to: number;
}

/** The most spans open at one instant (a span ending when another starts does not overlap it), and which. */
export function mostAtOnce(spans: Span[]): { most: number; keys: string[] } {
  const edges = spans.flatMap((s) => [
    { at: s.from, open: true, key: s.key },
    { at: s.to, open: false, key: s.key },
  ]);
  edges.sort((a, b) => a.at - b.at || Number(a.open) - Number(b.open));
  const open = new Set<string>();
  let best: string[] = [];
  for (const e of edges) {
    if (e.open) open.add(e.key);
    else open.delete(e.key);
    if (open.size > best.length) best = [...open];
  }
  return { most: best.length, keys: best.sort() };
}

/** Each repository's pull at the registry: its requests' first arrival to last answer. */
export function pullsAtRegistry(requests: RegistryRequest[], repositories: string[]): Span[] {
  return repositories.flatMap((key) => {
    const mine = requests.filter((r) => r.path.startsWith(`/v2/${key}/`));
    if (mine.length === 0) return [];
    return [
      {
        key,
        from: Math.min(...mine.map((r) => Date.parse(r.received ?? r.time))),
        to: Math.max(...mine.map((r) => Date.parse(r.time))),
      },
    ];
  });
}

/** Each repository's plugin exec (the provider's, for `<host>/<repository>`): its start to its answer. */
export function execsOfImages(execs: FakeInvocation[], host: string, repositories: string[]): Span[] {
  return repositories.flatMap((key) =>
    execs
      .filter((i) => i.image === `${host}/${key}`)
      .map((i) => ({ key, from: Date.parse(i.time) - i.durationMs, to: Date.parse(i.time) })),
  );
}

/** Each pod ready to pull: from its (last) exec's answer to the end of its pull at the registry. */
export function readyToPull(execs: Span[], pulls: Span[]): Span[] {
  return pulls.flatMap((p) => {
    const answered = execs.filter((e) => e.key === p.key && e.to <= p.from).map((e) => e.to);
    return answered.length > 0 ? [{ key: p.key, from: Math.max(...answered), to: p.to }] : [];
  });
}
