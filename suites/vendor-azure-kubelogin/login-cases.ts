// The mode × client grid: each real client (kubectl, client-go, client-node,
// the Python client) runs kubelogin get-token in each non-browser mode, each
// call in a home of its own (so its MSAL cache starts empty), and the API
// server takes the token as the principal it names.
import { caseOf, clientNotRun, judge, type Case, type ClientName, type ProbeAvailability } from '../../src/run/kit.ts';
import { LOGIN } from './checks.ts';
import { CLIENT_STATUS, modeExec, WHOAMI_STATUS, type Client, type Mode } from './plan.ts';
import { predictLogin, showLogin } from './predict.ts';
import { callEvidence, homeFor, callAs, viewOf, type Session } from './session.ts';

export function loginCase(s: Session, mode: Mode, client: Client, probe: ProbeAvailability | undefined): Case {
  const check = LOGIN[mode][client];
  return caseOf(check, async (ctx) => {
    const unavailable = clientNotRun(check, client as ClientName, probe, s.run.ci);
    if (unavailable) return unavailable;
    const exec = modeExec(mode, s.principals, s.federatedTokenFile);
    const kubectl = client === 'kubectl';
    const prediction = predictLogin(
      exec,
      s.tenant,
      { cacheUsable: s.lab.keyring.usable, cache: {}, now: ctx.clock.now() },
      kubectl ? WHOAMI_STATUS : CLIENT_STATUS,
    );
    const home = await homeFor(s, `${mode}-${client}`);
    const call = await callAs(s, ctx, kubectl ? 'kubectl' : probe!.probe, exec, home);
    return judge(check, {
      prediction,
      observed: viewOf(call, kubectl),
      show: showLogin,
      evidence: callEvidence([call]),
      actor: `${client}${probe?.availability.ok ? ` (${probe.availability.version})` : ''} → kubelogin → kube-apiserver`,
      startedAt: ctx.startedAt,
      ...(call.error ? { note: `the client said: ${call.error}` } : {}),
    });
  });
}
