// What the kubeconfig and the environment decide: a v1 user's answer,
// AZURE_CLIENT_ID over --client-id, and what `kubelogin convert-kubeconfig`
// writes for a service principal (and whether the converted user works).
import { parse, stringify } from 'yaml';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { convertedArgs, secretsInArgs } from '../../src/model/azure-kubelogin.ts';
import { caseOf, judge, type Case } from '../../src/run/kit.ts';
import { CONVERT, CONVERT_NO_SECRET, ENV_OVER_FLAGS, EXEC_INFO } from './checks.ts';
import { aksDevicecodeArgs, modeExec, WHOAMI_STATUS } from './plan.ts';
import { predictLogin, showLogin } from './predict.ts';
import { callEvidence, homeFor, callAs, viewOf, type Session } from './session.ts';

const V1 = 'client.authentication.k8s.io/v1';

export function execInfoCase(s: Session): Case {
  return caseOf(EXEC_INFO, async (ctx) => {
    const exec = modeExec('spn', s.principals, s.federatedTokenFile);
    // client-go sets KUBERNETES_EXEC_INFO for a v1 user (interactiveMode Never: spec.interactive false).
    const execInfo = JSON.stringify({ kind: 'ExecCredential', apiVersion: V1, spec: { interactive: false } });
    const prediction = predictLogin(
      exec,
      s.tenant,
      { cacheUsable: s.lab.keyring.usable, cache: {}, now: ctx.clock.now(), execInfo },
      WHOAMI_STATUS,
    );
    const call = await callAs(s, ctx, 'kubectl', exec, await homeFor(s, 'v1'), { apiVersion: V1 });
    return judge(EXEC_INFO, {
      prediction,
      observed: viewOf(call, true),
      show: showLogin,
      evidence: callEvidence([call]),
      actor: 'kubectl (v1 user) → kubelogin',
      startedAt: ctx.startedAt,
    });
  });
}

export function envOverFlagsCase(s: Session): Case {
  return caseOf(ENV_OVER_FLAGS, async (ctx) => {
    const spn = modeExec('spn', s.principals, s.federatedTokenFile);
    const exec = {
      args: spn.args.map((a) => (a === s.principals.spn.clientId ? s.principals.workload.clientId : a)),
      env: { ...spn.env, AZURE_CLIENT_ID: s.principals.spn.clientId },
    };
    const prediction = predictLogin(
      exec,
      s.tenant,
      { cacheUsable: s.lab.keyring.usable, cache: {}, now: ctx.clock.now() },
      WHOAMI_STATUS,
    );
    const call = await callAs(s, ctx, 'kubectl', exec, await homeFor(s, 'env-over-flags'));
    return judge(ENV_OVER_FLAGS, {
      prediction,
      observed: viewOf(call, true),
      show: showLogin,
      evidence: callEvidence([call]),
      actor: 'kubectl (--client-id of another app, AZURE_CLIENT_ID of the service principal) → kubelogin',
      startedAt: ctx.startedAt,
    });
  });
}

interface Converted {
  apiVersion: string;
  command: string;
  args: string[];
}

/** AZKL-CONVERT-KUBECONFIG and AZKL-CONVERT-KEEPS-SECRETS-OUT: one conversion, then kubectl with its user. */
export function convertCase(s: Session): Case {
  return {
    checks: [CONVERT, CONVERT_NO_SECRET],
    async run(ctx) {
      const home = await homeFor(s, 'convert');
      const p = s.principals;
      const existingArgs = aksDevicecodeArgs(p.tenantId);
      const user = `clusterUser_credprov_aks`;
      const file = join(home, 'config');
      const aks = {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1beta1',
          command: 'kubelogin',
          args: existingArgs,
          env: null,
          provideClusterInfo: false,
        },
      };
      await writeFile(file, stringify(kubeconfigOf(s, user, aks)), { mode: 0o600 });
      const flags = { clientId: p.spn.clientId, clientSecret: p.spn.secret };
      const want: Converted = {
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        command: 'kubelogin',
        args: convertedArgs({ login: 'spn', existingArgs, flags }),
      };
      const out = await s.lab.convert(
        file,
        ['-l', 'spn', '--client-id', flags.clientId, '--client-secret', flags.clientSecret],
        home,
      );
      const got = convertedOf(out.text, user);
      // The converted user as it is, but for its command: kubelogin on PATH is the recording wrapper here.
      const doc = parse(out.text) as { users: Array<{ name: string; user: { exec: { command: string } } }> };
      for (const u of doc.users) if (u.user.exec) u.user.exec.command = s.lab.command;
      const runnable = join(home, 'config-wrapped');
      await writeFile(runnable, stringify(doc), { mode: 0o600 });
      const exec = { args: got.args, env: { SSL_CERT_FILE: p.caFile } };
      const login = predictLogin(
        exec,
        s.tenant,
        { cacheUsable: s.lab.keyring.usable, cache: {}, now: ctx.clock.now() },
        WHOAMI_STATUS,
      );
      const call = await callAs(s, ctx, 'kubectl', exec, home, { kubeconfig: runnable, user });
      const show = (v: { converted: Converted; login: ReturnType<typeof viewOf> }) =>
        `${v.converted.command} ${v.converted.args.map((a) => (a === p.spn.secret ? '<secret>' : a)).join(' ')} (${v.converted.apiVersion}); ${showLogin(v.login)}`;
      const convert = judge(CONVERT, {
        prediction: {
          value: { converted: want, login: login.value },
          model: 'convert-kubeconfig model (convertedArgs) + ' + login.model,
          because: login.because,
        },
        observed: { converted: got, login: viewOf(call, true) },
        show,
        evidence: [
          {
            kind: 'data',
            label: 'convert-kubeconfig',
            data: { exitCode: out.exitCode, stderr: out.stderr.slice(-600), exec: got },
          },
          ...callEvidence([call]),
        ],
        actor: 'kubelogin convert-kubeconfig, then kubectl',
        startedAt: ctx.startedAt,
      });
      const secrets = secretsInArgs(got.args);
      const noSecret = judge(CONVERT_NO_SECRET, {
        prediction: {
          value: secretsInArgs(want.args),
          model: 'convert-kubeconfig model (convertedArgs, secretsInArgs)',
          because: 'convert.go appends --client-secret <value> to args when it is given',
        },
        observed: secrets,
        show: (v: string[]) =>
          v.length
            ? `secret flags in the converted exec args: ${v.join(', ')}`
            : 'no secret flag in the converted exec args',
        actor: 'kubelogin convert-kubeconfig',
        startedAt: ctx.startedAt,
        problems: secrets.length
          ? [
              `the converted kubeconfig carries the client secret in its exec args (${secrets.join(', ')}), readable in the file and on every plugin command line`,
            ]
          : [],
      });
      return [convert, noSecret];
    },
  };
}

function kubeconfigOf(s: Session, user: string, u: unknown) {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'credprov-aks', cluster: { server: s.cluster.server, 'certificate-authority-data': s.cluster.caData } },
    ],
    users: [{ name: user, user: u }],
    contexts: [{ name: 'credprov-aks', context: { cluster: 'credprov-aks', user } }],
    'current-context': 'credprov-aks',
  };
}

function convertedOf(text: string, user: string): Converted {
  const doc = parse(text) as { users?: Array<{ name: string; user?: { exec?: Partial<Converted> } }> };
  const e = doc.users?.find((u) => u.name === user)?.user?.exec ?? {};
  return { apiVersion: e.apiVersion ?? '', command: e.command ?? '', args: e.args ?? [] };
}
