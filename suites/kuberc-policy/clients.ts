// KRC-OTHER-CLIENTS: the kuberc policy is kubectl's. Under a DenyAll kuberc,
// named by $KUBERC and at ~/.kube/kuberc, the other real clients (the client-go
// probe, which sets no ExecProvider.PluginPolicy, client-node, Python) run the
// plugin and the API server accepts its token.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  caseOf,
  clientLogEvidence,
  clientNotRun,
  clusterOf,
  defaultClientEnv,
  judge,
  startClientSession,
  type Case,
  type Evidence,
  type ProbeAvailability,
  tokenFilePluginProgram,
} from '../../src/run/kit.ts';
import { OTHER_CLIENTS } from './checks.ts';
import { caseFixture } from './fixture.ts';
import { PLUGIN } from './plan.ts';
import { predictOtherClient, type ClientUnderKuberc } from './predict.ts';

const CLIENTS = ['client-go', 'client-node', 'python'] as const;

export function otherClientsCase(probes: () => Promise<Map<string, ProbeAvailability>>): Case {
  return caseOf(OTHER_CLIENTS, async (ctx) => {
    const available = await probes();
    for (const client of CLIENTS) {
      const missing = clientNotRun(OTHER_CLIENTS, client, available.get(client), ctx.ci);
      if (missing) return missing;
    }
    const env = ctx.environment;
    const { token, root: dir } = await caseFixture(ctx, 'clients');
    const home = join(dir, 'home');
    await mkdir(join(home, '.kube'), { recursive: true, mode: 0o700 });
    const kuberc = JSON.stringify({
      apiVersion: 'kubectl.config.k8s.io/v1beta1',
      kind: 'Preference',
      credentialPluginPolicy: 'DenyAll',
    });
    await writeFile(join(dir, 'kuberc.yaml'), kuberc, { mode: 0o600 });
    await writeFile(join(home, '.kube', 'kuberc'), kuberc, { mode: 0o600 });
    await writeFile(join(dir, 'token'), token, { mode: 0o600 });
    const plugin = join(dir, PLUGIN);
    const log = join(dir, 'ran.log');
    await writeFile(plugin, tokenFilePluginProgram(log, join(dir, 'token')), { mode: 0o700 });
    const cluster = await clusterOf(env);
    const predicted: Record<string, ClientUnderKuberc> = {};
    const observed: Record<string, ClientUnderKuberc> = {};
    const evidence: Evidence[] = [];
    for (const client of CLIENTS) {
      predicted[client] = predictOtherClient(client).value;
      await rm(log, { force: true });
      const session = await startClientSession(available.get(client)!.probe, {
        kubeconfig: join(dir, `${client}.kubeconfig`),
        cluster,
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: plugin,
          args: [],
          env: [],
          provideClusterInfo: false,
          interactiveMode: 'Never',
        },
        user: 'krc',
        timeoutMs: 60_000,
        redactor: ctx.redactor,
        env: { ...defaultClientEnv(process.env), HOME: home, KUBERC: join(dir, 'kuberc.yaml') },
      });
      try {
        const r = await session.request('/api');
        const ran = (await readFile(log, 'utf8').catch(() => '')).trim() !== '';
        observed[client] = { pluginRan: ran, answer: r.status ?? 'no request' };
        if (r.error) evidence.push({ kind: 'text', label: `${client}: error`, text: r.error });
        evidence.push(...clientLogEvidence(`${client} log`, session.log()));
      } finally {
        await session.close();
      }
    }
    return judge(OTHER_CLIENTS, {
      prediction: {
        value: predicted,
        model: 'kuberc policy (src/model/kuberc-policy.ts clientEnforcesKuberc)',
        because: CLIENTS.map((c) => predictOtherClient(c).because).join(' | '),
      },
      observed,
      show: (v) =>
        Object.entries(v)
          .map(([c, o]) => `${c}: ${o.pluginRan ? 'ran the plugin' : 'did not run the plugin'}, ${o.answer}`)
          .join('; '),
      actor: 'the clients',
      evidence,
    });
  });
}
