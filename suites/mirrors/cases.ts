// The mirrors suite's cases: one pod per case (side by side), then what each
// registry's recording proxy saw for that case's repository, and which
// providers the kubelet exec'd for its image.
import {
  createPullSecret,
  judge,
  kubeletEvidence,
  runPod,
  sleep,
  type Case,
  type CaseContext,
  type CheckResult,
  type Fleet,
  type RecordingProxy,
  type RegistryRequest,
} from '../../src/run/kit.ts';
import { crossingCheck, hostsCheck } from './checks.ts';
import { imageHostOf, imageOf, repositoryOf, SECRET, type MirrorCase, type Topology } from './plan.ts';
import { crossingsOf, loginLabel, predictCase, type MirrorSeen } from './predict.ts';

export interface MirrorsLab {
  topology: Topology;
  /** The recording proxies by role (origin, replica, refuses, lacks). */
  proxies: Record<string, RecordingProxy>;
  fleet: Fleet;
  /** Each case's image digest (the same on the origin and the replica). */
  digests: Record<string, string>;
  password: string;
}

const showSeen = (v: MirrorSeen) =>
  `pull ${v.pull}; ${
    Object.entries(v.seen)
      .map(([role, logins]) => `${role} saw ${logins.join(' + ')}`)
      .join('; ') || 'no registry saw a request'
  }; providers exec'd: ${v.execd.join(', ') || 'none'}`;
const showCrossed = (v: string[]) => (v.length ? `CREDENTIAL CROSSED: ${v.join('; ')}` : 'no login crossed');

/** containerd's requests for the case's repository, per proxy role, as login labels. */
async function observedSeen(
  s: MirrorsLab,
  c: MirrorCase,
): Promise<{ seen: Record<string, string[]>; all: RegistryRequest[] }> {
  const prefix = `/v2/${repositoryOf(c)}/`;
  const seen: Record<string, string[]> = {};
  const all: RegistryRequest[] = [];
  for (const [role, proxy] of Object.entries(s.proxies)) {
    const mine = (await proxy.requests()).filter((r) => r.path.startsWith(prefix) && r.agent.startsWith('containerd'));
    all.push(...mine.map((r) => ({ ...r, host: `${r.host} (${role})` })));
    if (mine.length) seen[role] = [...new Set(mine.map((r) => loginLabel(s.topology, r.credential)))].sort();
  }
  return { seen, all };
}

/** One pod; judged twice: the hosts model's MUST, and the SHOULD that no login crossed. */
export function mirrorCase(s: MirrorsLab, c: MirrorCase): Case {
  const checks = [hostsCheck(c), crossingCheck(c)];
  return {
    checks,
    async run(ctx: CaseContext): Promise<CheckResult[]> {
      const digest = s.digests[c.id]!;
      const prediction = predictCase(c, s.topology, digest);
      const namespace = await ctx.namespace('mirrors');
      if (c.source === 'secret') {
        const login = { username: s.topology.user, password: s.password };
        await createPullSecret(ctx.environment, { name: SECRET, namespace, auths: { [imageHostOf(c)]: login } });
      }
      ctx.onFailure(() => kubeletEvidence(ctx.environment, [imageHostOf(c), 'credential provider']));
      const image = imageOf(c, digest);
      const run = await runPod(ctx.environment, {
        name: 'mirrors',
        namespace,
        image,
        pullPolicy: 'Always',
        ...(c.source === 'secret' ? { imagePullSecrets: [SECRET] } : {}),
      });
      await sleep(300, ctx.clock); // the proxies append their last lines after answering
      const { seen, all } = await observedSeen(s, c);
      const execd = [
        ...new Set(
          (await s.fleet.invocations())
            .filter((i) => (i.request.image ?? '').startsWith(`${imageHostOf(c)}/`))
            .map((i) => i.provider),
        ),
      ].sort();
      const observed: MirrorSeen = { pull: run.pull, seen, execd };
      const evidence = [
        ...run.evidence,
        { kind: 'data' as const, label: `registry requests for ${repositoryOf(c)} (login names only)`, data: all },
      ];
      const crossed = crossingsOf(seen);
      const roles = Object.fromEntries(
        Object.entries(s.topology)
          .filter(([k]) => k !== 'user')
          .map(([k, v]) => [v, k]),
      );
      return [
        judge(checks[0]!, {
          prediction,
          observed,
          show: showSeen,
          evidence,
          actor: 'containerd and the kubelet',
        }),
        judge(checks[1]!, {
          prediction: { value: prediction.crossed, model: prediction.model, because: prediction.because },
          observed: crossed,
          show: showCrossed,
          evidence,
          actor: 'the registries',
          problems: crossed.map(
            (x) =>
              `CREDENTIAL CROSSED: ${x} (issued for the origin ${s.topology.origin}, sent to ${roleHost(roles, x)})`,
          ),
        }),
      ];
    },
  };
}

function roleHost(roles: Record<string, string>, crossing: string): string {
  const role = crossing.split(' → ')[1] ?? '';
  return Object.entries(roles).find(([, r]) => r === role)?.[0] ?? role;
}
