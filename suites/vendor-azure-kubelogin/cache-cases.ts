// kubelogin's token cache (MSAL's, in ~/.cache/.IdentityService, keyed in the
// kernel keyring): a second run in the same home is answered from it, and so
// is a run whose client secret is wrong; with an empty cache a wrong secret
// is refused by Entra ID and the plugin says so.
import { judge, type Case } from '../../src/run/kit.ts';
import { CACHE, CACHE_IGNORES_SECRET, WRONG_SECRET } from './checks.ts';
import { modeExec, TOKEN_LIFETIME_S, WHOAMI_STATUS, type ModeExec } from './plan.ts';
import { cacheAfter, predictLogin, showLogin, type LoginView, type RunContext } from './predict.ts';
import { callEvidence, homeFor, callAs, viewOf, type Session } from './session.ts';

const wrongSecret = (exec: ModeExec): ModeExec => ({
  ...exec,
  env: { ...exec.env, AAD_SERVICE_PRINCIPAL_CLIENT_SECRET: 'not-the-secret-of-this-app' },
});

/** AZKL-TOKEN-CACHE and AZKL-CACHE-NEEDS-THE-CREDENTIAL: three kubectl runs in one home. */
export function cacheCase(s: Session): Case {
  return {
    checks: [CACHE, CACHE_IGNORES_SECRET],
    async run(ctx) {
      const spn = modeExec('spn', s.principals, s.federatedTokenFile);
      const c0: RunContext = { cacheUsable: s.lab.keyring.usable, cache: {}, now: ctx.clock.now() };
      const first = predictLogin(spn, s.tenant, c0, WHOAMI_STATUS);
      const c1 = { ...c0, cache: cacheAfter(spn, c0, first.value, TOKEN_LIFETIME_S * 1000), now: c0.now + 5_000 };
      const second = predictLogin(spn, s.tenant, c1, WHOAMI_STATUS);
      const third = predictLogin(wrongSecret(spn), s.tenant, { ...c1, now: c1.now + 5_000 }, WHOAMI_STATUS);
      const home = await homeFor(s, 'cache');
      const calls = [
        await callAs(s, ctx, 'kubectl', spn, home),
        await callAs(s, ctx, 'kubectl', spn, home),
        await callAs(s, ctx, 'kubectl', wrongSecret(spn), home),
      ];
      const views = calls.map((c) => viewOf(c, true));
      const keyring = `kernel keyring: ${s.lab.keyring.detail}`;
      const cache = judge(CACHE, {
        prediction: {
          ...second,
          value: [first.value, second.value],
          because: `${keyring}; ${first.because} | ${second.because}`,
        },
        observed: views.slice(0, 2),
        show: (v: LoginView[]) => v.map(showLogin).join(' | '),
        evidence: callEvidence(calls.slice(0, 2)),
        actor: 'kubectl → kubelogin → kube-apiserver',
        startedAt: ctx.startedAt,
      });
      const answeredWrong = views[2]!.fromCache && views[2]!.status === WHOAMI_STATUS;
      const ignores = judge(CACHE_IGNORES_SECRET, {
        prediction: { ...third, because: `${keyring}; ${third.because}` },
        observed: views[2]!,
        show: showLogin,
        evidence: callEvidence(calls.slice(2)),
        actor: 'kubectl → kubelogin (a wrong client secret) → kube-apiserver',
        startedAt: ctx.startedAt,
        problems: answeredWrong
          ? [
              `kubelogin answered the cached token to a run with a wrong client secret, and the API server took it as ${views[2]!.username ?? 'the principal'}`,
            ]
          : [],
      });
      return [cache, ignores];
    },
  };
}

/** A wrong secret and an empty cache: Entra refuses, kubelogin exits non-zero naming AADSTS7000215. */
export function wrongSecretCase(s: Session): Case {
  return {
    checks: [WRONG_SECRET],
    async run(ctx) {
      const exec = wrongSecret(modeExec('spn', s.principals, s.federatedTokenFile));
      const prediction = predictLogin(
        exec,
        s.tenant,
        { cacheUsable: s.lab.keyring.usable, cache: {}, now: ctx.clock.now() },
        WHOAMI_STATUS,
      );
      const call = await callAs(s, ctx, 'kubectl', exec, await homeFor(s, 'wrong-secret'));
      const stderr = call.runs[0]?.stderr ?? '';
      return judge(WRONG_SECRET, {
        prediction,
        observed: viewOf(call, true),
        show: showLogin,
        evidence: callEvidence([call]),
        actor: 'kubectl → kubelogin → Entra ID',
        startedAt: ctx.startedAt,
        problems:
          call.runs.length && !stderr.includes('AADSTS7000215')
            ? [`its stderr does not name the refusal: ${stderr.slice(-300)}`]
            : [],
      });
    },
  };
}
