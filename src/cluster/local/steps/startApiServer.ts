// kube-apiserver on 127.0.0.1: Node,RBAC authorization with NodeRestriction
// (what the kubelet's service-account token requests go through), a real
// service-account issuer so TokenRequest and OIDC discovery work, feature
// gates from the spec, and an optional token webhook and AuthenticationConfiguration
// (JWT authenticators) for 401 suites.
import { get } from '../net.ts';
import { runningDaemons, startDaemon, waitFor } from '../daemon.ts';
import type { Step, StepContext } from '../context.ts';
import { featureGatesFlag } from './flags.ts';

export function apiServerArgs(ctx: StepContext): string[] {
  const { spec, ports } = ctx.state;
  const pki = ctx.pki;
  const args = [
    `--etcd-servers=http://127.0.0.1:${ports.etcdClient}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${ports.apiserver}`,
    `--tls-cert-file=${pki.apiserverCert}`,
    `--tls-private-key-file=${pki.apiserverKey}`,
    `--client-ca-file=${pki.caCert}`,
    '--authorization-mode=Node,RBAC',
    '--enable-admission-plugins=NodeRestriction',
    `--service-account-issuer=${ctx.apiServerUrl}`,
    `--service-account-key-file=${pki.saPub}`,
    `--service-account-signing-key-file=${pki.saKey}`,
    `--api-audiences=${ctx.apiServerUrl}`,
    '--service-cluster-ip-range=10.0.0.0/24',
    `--kubelet-client-certificate=${pki.apiserverKubeletClientCert}`,
    `--kubelet-client-key=${pki.apiserverKubeletClientKey}`,
    '--kubelet-preferred-address-types=InternalIP,Hostname',
    '--allow-privileged=true',
    // 1.37 refuses a loopback advertise address with the lease reconciler ("may not be in the
    // loopback range"); nothing in-cluster needs the kubernetes Service endpoints here.
    '--endpoint-reconciler-type=none',
    // Two shared cores: no flow-control bookkeeping, no profiling endpoints.
    '--enable-priority-and-fairness=false',
    '--profiling=false',
  ];
  const gates = featureGatesFlag(spec.featureGates.apiserver);
  if (gates) args.push(gates);
  if (spec.apiserver.tokenWebhookConfigFile) {
    args.push(
      `--authentication-token-webhook-config-file=${spec.apiserver.tokenWebhookConfigFile}`,
      '--authentication-token-webhook-version=v1',
      '--authentication-token-webhook-cache-ttl=0s',
    );
  }
  // Read at start (and watched, but the suites never change it in place): a different file means a new API server.
  // Structured authentication is GA in 1.37 and combines with the webhook flags above.
  if (spec.apiserver.authenticationConfigFile)
    args.push(`--authentication-config=${spec.apiserver.authenticationConfigFile}`);
  return [...args, ...spec.apiserver.extraArgs];
}

export const startApiServer: Step = {
  name: 'start kube-apiserver',
  async run(ctx) {
    const daemon = await startDaemon(
      { name: 'kube-apiserver', bin: ctx.state.binaries.kubeApiserver, args: apiServerArgs(ctx) },
      ctx.layout,
      ctx.log,
    );
    const tls = { ca: ctx.pki.caCert, cert: ctx.pki.adminCert, key: ctx.pki.adminKey };
    await waitFor('kube-apiserver /readyz', async () => (await get(`${ctx.apiServerUrl}/readyz`, tls)).status === 200, {
      timeoutMs: 60_000,
      daemon,
      dependsOn: await runningDaemons(ctx.layout, ['etcd']),
      intervalMs: 250,
      signal: ctx.signal,
    });
  },
};
