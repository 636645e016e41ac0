// What credprov's models say for each mirrors case, before any pod exists:
// which credential the kubelet hands containerd (pull-credentials model, the
// matching oracle), then which hosts containerd tries and which of them see
// that credential (containerd hosts model, src/model/containerd-hosts.ts).
import {
  containerdHosts,
  predictHostPull,
  type HostAnswer,
  type HostPullPrediction,
} from '../../src/model/containerd-hosts.ts';
import { predictPull } from '../../src/model/pull-credentials.ts';
import { matchImage } from '../../src/matching/url.ts';
import type { Prediction } from '../../src/run/kit.ts';
import { imageHostOf, imageOf, providersOf, SECRET, type MirrorCase, type Topology } from './plan.ts';

/** What one case's pull did, as the MUST check compares it. */
export interface MirrorSeen {
  pull: 'success' | 'failure';
  /** Per registry role (origin, mirror: replica/refuses/lacks, server), the logins it saw: `origin account`, `none`. */
  seen: Record<string, string[]>;
  /** The providers the kubelet exec'd for the image. */
  execd: string[];
}

export const MODEL = 'containerd hosts model (src/model/containerd-hosts.ts) over the pull-credentials model';
const ORIGIN_LOGIN = 'origin account';

/** A role's name in the report: `origin`, or the mirror's kind. */
export function roleOf(t: Topology, host: string): string {
  const role = (['origin', 'replica', 'refuses', 'lacks', 'down'] as const).find((r) => t[r] === host);
  return role ?? host;
}

export const loginLabel = (t: Topology, username: string) => (username === t.user ? ORIGIN_LOGIN : username);

function answers(t: Topology): Record<string, HostAnswer> {
  return {
    [t.origin]: { kind: 'registry', auth: 'basic', accepts: [t.user], hasImage: true },
    [t.replica]: { kind: 'registry', auth: 'basic', accepts: [t.user], hasImage: true },
    [t.refuses]: { kind: 'registry', auth: 'basic', accepts: [], hasImage: true },
    [t.lacks]: { kind: 'registry', auth: 'basic', accepts: [t.user], hasImage: false },
    [t.down]: { kind: 'down' },
  };
}

/** The kubelet's credential attempts for the case's image (usernames, in order; [] is one anonymous pull), and the providers it execs. */
export function kubeletSide(c: MirrorCase, t: Topology, digest: string): { attempts: string[]; execd: string[] } {
  const image = imageOf(c, digest);
  // Every provider answers for every host it matches; `works: false` keeps predictPull listing every attempt in order.
  const providers = providersOf(t).map((p) => ({
    ...p,
    auths: Object.fromEntries(p.matchImages.map((m) => [m, { username: t.user, works: false }])),
  }));
  const secrets =
    c.source === 'secret' ? [{ name: SECRET, auths: { [imageHostOf(c)]: { username: t.user, works: false } } }] : [];
  const pull = predictPull({ image, secrets, providers });
  return {
    attempts: pull.attempts.map((a) => a.username),
    execd: providers.filter((p) => p.matchImages.some((m) => matchImage(m, image).match)).map((p) => p.name),
  };
}

/** containerd's side: every kubelet attempt in turn, until one pulls. */
export function containerdSide(c: MirrorCase, t: Topology, attempts: string[]): HostPullPrediction[] {
  const imageHost = imageHostOf(c);
  const mirror = c.mirror
    ? [
        {
          url: `https://${t[c.mirror.kind]}`,
          ...(c.mirror.capabilities ? { capabilities: c.mirror.capabilities } : {}),
        },
      ]
    : [];
  const hosts = containerdHosts(imageHost, { server: `https://${t[c.server]}`, hosts: mirror });
  const pulls: HostPullPrediction[] = [];
  for (const username of attempts.length ? attempts : [undefined]) {
    const p = predictHostPull({
      imageHost,
      by: c.by,
      hosts,
      answers: answers(t),
      ...(username ? { auth: { username } } : {}),
      issuedFor: t.origin,
    });
    pulls.push(p);
    if (p.pull === 'success') break;
  }
  return pulls;
}

export function predictCase(
  c: MirrorCase,
  t: Topology,
  digest: string,
): Prediction<MirrorSeen> & { crossed: string[] } {
  const k = kubeletSide(c, t, digest);
  const pulls = containerdSide(c, t, k.attempts);
  const seen: Record<string, string[]> = {};
  for (const p of pulls)
    for (const [host, logins] of Object.entries(p.seen)) {
      if (logins.length === 0) continue; // a host nothing reached (down) has no log to compare
      const role = roleOf(t, host);
      seen[role] = [...new Set([...(seen[role] ?? []), ...logins.map((l) => loginLabel(t, l))])].sort();
    }
  const crossed = [
    ...new Set(pulls.flatMap((p) => p.crossings.map((x) => `${loginLabel(t, x.username)} → ${roleOf(t, x.sentTo)}`))),
  ].sort();
  const last = pulls.at(-1)!;
  const kubelet = k.attempts.length
    ? `the kubelet offers ${k.attempts.length} login(s)`
    : 'the kubelet pulls anonymously';
  return {
    value: { pull: last.pull, seen, execd: k.execd },
    model: MODEL,
    because: `${kubelet} (providers exec'd: ${k.execd.join(', ') || 'none'}); ${pulls.map((p) => p.because).join(' | ')}`,
    crossed,
  };
}

/** The crossings an observation shows: a login of the origin seen by any other role. */
export function crossingsOf(seen: Record<string, string[]>): string[] {
  return Object.entries(seen)
    .filter(([role]) => role !== 'origin')
    .flatMap(([role, logins]) => logins.filter((l) => l !== 'none').map((l) => `${l} → ${role}`))
    .sort();
}
