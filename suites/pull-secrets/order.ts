// Cases about which credentials the kubelet tries for one pull, in what order:
// every pull secret of the pod, then the credential provider's, until one
// works. The registry's log says what was offered (each wrong credential has
// a user of its own).
import { authTrail, caseOf, createPod, firstPull, judge, type Case, type CaseContext } from '../../src/run/kit.ts';
import { EVERY_SECRET_TRIED, SECRET_AND_PROVIDER } from './checks.ts';
import { evidenceOf, onFailureLogs } from './evidence.ts';
import { caseNamespace, worldOf, type Fixture } from './fixture.ts';
import { FIRST_OUTCOME_MS, PROVIDER, imageOf, repositoryOf } from './plan.ts';
import {
  MIX_SECRETS,
  predictEverySecretTried,
  predictSecretAndProvider,
  providerSource,
  secretSource,
} from './predict.ts';
import { triedBy } from './registry-log.ts';

export function orderCases(fixture: Fixture): Case[] {
  return [
    // [wrong, right]: both for the same registry.
    caseOf(EVERY_SECRET_TRIED, async (ctx) => {
      const pod = 'every';
      onFailureLogs(ctx, fixture, [pod], ['every']);
      const prediction = predictEverySecretTried(worldOf(fixture));
      const namespace = await caseNamespace(ctx, fixture, pod, { secrets: ['wrong', 'right'] });
      const image = imageOf(fixture.host, 'every');
      await createPod(ctx.environment, {
        name: pod,
        namespace,
        image,
        pullPolicy: 'Always',
        imagePullSecrets: ['wrong', 'right'],
      });
      const first = await firstPull(ctx.environment, pod, namespace, FIRST_OUTCOME_MS);
      const trail = await authTrail(fixture.lab, repositoryOf('every'));
      const seen = trail.map((a) =>
        a.ok ? 'accepted' : `${a.user === fixture.accounts.right.username ? 'the registry user' : a.user} refused`,
      );
      const order = trail.length ? ` (registry saw: ${seen.join(' → ')})` : '';
      return judge(EVERY_SECRET_TRIED, {
        prediction,
        observed: first.observed,
        show: (v) => `pull with imagePullSecrets [wrong, right]: ${v}${v === first.observed ? order : ''}`,
        evidence: await evidenceOf(ctx, fixture, namespace, [pod], { secrets: ['wrong', 'right'], repos: ['every'] }),
      });
    }),

    // Pull secrets and a provider for the same image; one of the two is wrong.
    caseOf(SECRET_AND_PROVIDER, async (ctx) => {
      const pods = ['mix-a', 'mix-b'] as const;
      onFailureLogs(ctx, fixture, pods, pods);
      const prediction = predictSecretAndProvider(worldOf(fixture));
      const namespace = await caseNamespace(ctx, fixture, 'mix', {
        secrets: [MIX_SECRETS['mix-a'], MIX_SECRETS['mix-b']],
      });
      const [pullA, pullB] = await Promise.all(pods.map((pod) => pull(ctx, fixture, namespace, pod)));
      // An accepted request can only be the right credential: the provider's for mix-a, the secret's for mix-b.
      const [trailA, trailB] = await Promise.all(pods.map((pod) => authTrail(fixture.lab, repositoryOf(pod))));
      const { secretWrong, providerWrong } = fixture.accounts;
      const observed = {
        wrongSecretRightProvider: {
          pull: pullA!.observed,
          tried: triedBy(
            trailA!,
            { [secretWrong.username]: secretSource(MIX_SECRETS['mix-a']) },
            providerSource(PROVIDER),
          ),
        },
        rightSecretWrongProvider: {
          pull: pullB!.observed,
          tried: triedBy(
            trailB!,
            { [providerWrong.username]: providerSource(PROVIDER) },
            secretSource(MIX_SECRETS['mix-b']),
          ),
        },
      };
      const invocations = await fixture.fleet.invocations().catch(() => []);
      const tried = (t: { pull: string; tried: string[] }) => `${t.pull}, tried ${t.tried.join(' → ') || 'nothing'}`;
      return judge(SECRET_AND_PROVIDER, {
        prediction,
        observed,
        show: (v) =>
          `wrong secret + right provider: ${tried(v.wrongSecretRightProvider)}; ` +
          `right secret + wrong provider: ${tried(v.rightSecretWrongProvider)}`,
        evidence: [
          ...(await evidenceOf(ctx, fixture, namespace, pods, {
            secrets: [MIX_SECRETS['mix-a'], MIX_SECRETS['mix-b']],
            repos: pods,
          })),
          {
            kind: 'invocation',
            label: `provider invocations (${fixture.fleet.logFile})`,
            data: ctx.redactor.value(invocations),
          },
        ],
      });
    }),
  ];
}

/** Creates the mixed case's pod `repo` (named after its repository, with its secret) and waits for its first pull. */
async function pull(ctx: CaseContext, fixture: Fixture, namespace: string, repo: 'mix-a' | 'mix-b') {
  const image = imageOf(fixture.host, repo);
  await createPod(ctx.environment, {
    name: repo,
    namespace,
    image,
    pullPolicy: 'Always',
    imagePullSecrets: [MIX_SECRETS[repo]],
  });
  return firstPull(ctx.environment, repo, namespace, FIRST_OUTCOME_MS);
}
