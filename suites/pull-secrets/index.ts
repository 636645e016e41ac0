// The pull-secrets suite: a pod's imagePullSecrets against the real kubelet and
// API server. One htpasswd registry (plan.ts: one account; "wrong" credentials
// are a refused password or an unknown user), one image repository per case,
// and one recording fake provider for the case that mixes secrets with a
// provider. Every case states its prediction (predict.ts: the design text
// "Packaging APIs + Registry Auth" and the keyring model
// src/model/pull-credentials.ts) before it acts. The cases share no object:
// each runs side by side with the others in a namespace of its own
// (fixture.ts), with the secrets and service accounts it needs.
import { randomBytes } from 'node:crypto';
import { prepareFleet, runCases, startLabRegistry, type Suite } from '../../src/run/kit.ts';
import { PULL_SECRETS_CHECKS } from './checks.ts';
import type { Fixture } from './fixture.ts';
import { orderCases } from './order.ts';
import { REPOS, providerMember, repositoryOf, type Accounts } from './plan.ts';
import { podSpecCases } from './pod-spec.ts';
import { secretLaterCases } from './secret-later.ts';

export const pullSecretsSuite: Suite = {
  name: 'pull-secrets',
  summary:
    'imagePullSecrets on the real kubelet: a secret created late or filled in late, immutability, ' +
    'service-account pull secrets not merged or adopted, every secret tried, secrets before a credential provider',
  checks: PULL_SECRETS_CHECKS,
  async prepare(ctx) {
    const id = randomBytes(3).toString('hex');
    const lab = await startLabRegistry(ctx, 'secrets');
    // Its log (who authenticated, in what order) is kept with the suite's artifacts.
    ctx.defer(() => lab.stop({ keepLogAs: 'registry.log' }));
    const host = lab.registry.host;
    for (const repo of REPOS) await lab.push(repositoryOf(repo));
    const accounts: Accounts = {
      right: { username: lab.user.username, password: lab.user.password },
      wrong: { username: lab.user.username, password: lab.wrongPassword },
      secretWrong: { username: `secret-wrong-${id}`, password: lab.wrongPassword },
      providerWrong: { username: `provider-wrong-${id}`, password: randomBytes(12).toString('hex') },
    };
    ctx.redactor.add(accounts.secretWrong.password, accounts.providerWrong.password);
    const fleet = await prepareFleet(ctx, [providerMember(host, accounts)]);
    ctx.defer(() => fleet.redactArtifacts());
    const fixture: Fixture = { lab, fleet, host, accounts };
    return {
      spec: fleet.spec,
      needs: ['installPlugins', 'hostRegistries'],
      run: async (run) => {
        await lab.serveAs(run, host);
        return runCases(run, [...secretLaterCases(fixture), ...podSpecCases(fixture), ...orderCases(fixture)]);
      },
    };
  },
};
