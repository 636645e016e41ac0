// The Azure kubelogin lab: what the vendor-azure-kubelogin suite starts before
// any environment exists. The real `kubelogin` (github.com/Azure/kubelogin, a
// cached build) behind the exec recording wrapper; a fake Entra ID tenant
// (src/fake-clouds/azure/entra.ts) under login.microsoftonline.com with the
// principals of each non-browser login mode (a service principal with a
// secret, a public client and a user for ROPC, an app with a federated
// credential for the cluster's service account, a system-assigned managed
// identity behind App Service's endpoint); the AuthenticationConfiguration that
// makes kube-apiserver's JWT authenticator trust that tenant for the AKS server
// app; and a probe of the kernel keyring, on which kubelogin's token cache depends.
// Secrets are random per lab and handed to the redactor.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { execa } from 'execa';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureJwtAuthenticationConfig } from '../authn/authentication-config.ts';
import { kubectl } from '../cluster/kubectl.ts';
import type { Environment } from '../cluster/provider.ts';
import { cacheDir, stateDir } from '../core/paths.ts';
import { entraIssuer, FakeEntraId, type FakeAzureRequest, type StartedEntra } from '../fake-clouds/azure/index.ts';
import { installExecRecordingWrapper, readExecRuns, type RecordedExecRun } from '../plugin/exec-recording-wrapper.ts';
import { ensureAzureKubelogin } from '../plugin/vendors/azure-kubelogin.ts';
import type { SuiteSetup } from '../run/suite.ts';
import { clusterOidc } from './cluster-oidc.ts';

export { AZURE_KUBELOGIN_VERSION } from '../plugin/vendors/azure-kubelogin.ts';

/** The principals the lab's tenant holds, one per non-browser login mode. */
export interface AzurePrincipals {
  spn: { clientId: string; objectId: string; secret: string };
  ropc: { clientId: string; objectId: string; username: string; password: string };
  workload: { clientId: string; objectId: string; namespace: string; serviceAccount: string };
  msi: { objectId: string; identityHeader: string };
}

export interface AzureKubeloginLabOptions {
  /** The AKS server app (the --server-id every kubeconfig names; the tokens' aud). */
  serverId: string;
  /** The public client ROPC signs in through (the Azure CLI's, as AKS's docs use). */
  publicClientId: string;
  /** What the API server prefixes a token's oid with. */
  usernamePrefix: string;
  tokenLifetimeS: number;
  /** The workload identity's service account (the federated credential's subject). */
  workload: { namespace: string; serviceAccount: string };
}

export interface AzureKubeloginLab {
  tenantId: string;
  serverId: string;
  principals: AzurePrincipals;
  /** The wrapper in front of the real kubelogin: the exec command. */
  command: string;
  /** The real binary (convert-kubeconfig runs it directly). */
  binary: string;
  entra: StartedEntra;
  /** kube-apiserver's --authentication-config: the tenant's v2.0 issuer, audience the server id, username aad:<oid>. */
  authenticationConfigFile: string;
  /** Whether a process here may use the kernel user keyring (kubelogin's token cache needs it). */
  keyring: { usable: boolean; detail: string };
  runs(): Promise<RecordedExecRun[]>;
  entraRequests(): FakeAzureRequest[];
  /** Trusts the cluster's service-account issuer for the federated credential and writes the workload's token file. */
  trustCluster(env: Environment, dir: string): Promise<{ federatedTokenFile: string }>;
  /** `kubelogin convert-kubeconfig` on `kubeconfig` (in place), with `args`. */
  convert(
    kubeconfig: string,
    args: string[],
    home: string,
  ): Promise<{ exitCode: number; stderr: string; text: string }>;
}

export async function startAzureKubeloginLab(ctx: SuiteSetup, o: AzureKubeloginLabOptions): Promise<AzureKubeloginLab> {
  const plugin = await ensureAzureKubelogin({
    cacheDir: cacheDir(ctx.processEnv),
    progress: ctx.progress,
    log: ctx.log,
  });
  if (!plugin) throw new Error('Azure kubelogin was neither cached nor built');
  // A tenant of the environment's own (stable for it: the API server's config names its issuer).
  const tenantId = uuidFrom(`credprov-aks-tenant:${ctx.environmentName}`);
  const principals: AzurePrincipals = {
    spn: { clientId: randomUUID(), objectId: randomUUID(), secret: randomBytes(24).toString('base64url') },
    ropc: {
      clientId: o.publicClientId,
      objectId: randomUUID(),
      username: 'alice@credprov-aks.test',
      password: randomBytes(18).toString('base64url'),
    },
    workload: { clientId: randomUUID(), objectId: randomUUID(), ...o.workload },
    msi: { objectId: randomUUID(), identityHeader: randomBytes(16).toString('hex') },
  };
  ctx.redactor.add(principals.spn.secret, principals.ropc.password, principals.msi.identityHeader);
  const work = join(stateDir(ctx.processEnv), 'vendor-labs', 'azure-kubelogin', ctx.environmentName);
  await mkdir(work, { recursive: true, mode: 0o700 });
  const fake = new FakeEntraId({
    tenantId,
    apps: [
      { clientId: principals.spn.clientId, objectId: principals.spn.objectId, secrets: [principals.spn.secret] },
      { clientId: principals.ropc.clientId, objectId: randomUUID(), publicClient: true },
      { clientId: principals.workload.clientId, objectId: principals.workload.objectId },
    ],
    users: [
      { username: principals.ropc.username, password: principals.ropc.password, objectId: principals.ropc.objectId },
    ],
    credentials: [
      {
        tenantId,
        clientId: principals.workload.clientId,
        subject: `system:serviceaccount:${o.workload.namespace}:${o.workload.serviceAccount}`,
        audience: 'api://AzureADTokenExchange',
      },
    ],
    resources: [o.serverId],
    identityHeader: principals.msi.identityHeader,
    managedIdentities: [{ objectId: principals.msi.objectId }],
    tokenLifetimeS: o.tokenLifetimeS,
    onSecret: (s) => ctx.redactor.add(s),
    logFile: join(ctx.artifactsDir, 'fake-entra-requests.jsonl'),
  });
  ctx.defer(() => fake.stop());
  const entra = await fake.start({ dir: join(work, 'entra') });
  ctx.defer(() => entra.unmap());
  // In the apiVersion the environment's kube-apiserver reads (v1beta1 on 1.33: the version table).
  const authenticationConfigFile = await ensureJwtAuthenticationConfig(
    work,
    [
      {
        url: entraIssuer(tenantId),
        caPem: entra.caPem,
        audiences: [o.serverId],
        username: { claim: 'oid', prefix: o.usernamePrefix },
      },
    ],
    ctx.kubeVersion,
  );
  // Each run's stdout holds a live token until the suite ends: a private temp dir, removed after.
  const runsDir = await mkdtemp(join(tmpdir(), 'credprov-azure-kubelogin-runs-'));
  ctx.defer(() => rm(runsDir, { recursive: true, force: true }));
  await mkdir(join(work, 'bin'), { recursive: true });
  const command = await installExecRecordingWrapper({
    path: join(work, 'bin', 'kubelogin'),
    target: plugin.path,
    logDir: runsDir,
  });
  return {
    tenantId,
    serverId: o.serverId,
    principals,
    command,
    binary: plugin.path,
    entra,
    authenticationConfigFile,
    keyring: await keyringProbe(),
    runs: () => readExecRuns(runsDir),
    entraRequests: () => fake.requests(),
    async trustCluster(env, dir) {
      const t = { kubectl: env.kubectl, kubeconfig: env.kubeconfig };
      fake.trustOidc(await clusterOidc(t));
      const { namespace, serviceAccount } = o.workload;
      await kubectl(t, ['create', 'serviceaccount', serviceAccount, '-n', namespace]).catch(() => '');
      const token = (
        await kubectl(t, [
          'create',
          'token',
          serviceAccount,
          '-n',
          namespace,
          '--audience',
          'api://AzureADTokenExchange',
        ])
      ).trim();
      ctx.redactor.add(token);
      const federatedTokenFile = join(dir, 'azure-identity-token');
      await writeFile(federatedTokenFile, token, { mode: 0o600 });
      return { federatedTokenFile };
    },
    async convert(kubeconfig, args, home) {
      const r = await execa(plugin.path, ['convert-kubeconfig', '--kubeconfig', kubeconfig, ...args], {
        reject: false,
        timeout: 60_000,
        extendEnv: false,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
      });
      return { exitCode: r.exitCode ?? -1, stderr: String(r.stderr), text: await readFile(kubeconfig, 'utf8') };
    },
  };
}

/** A UUID-shaped id derived from `seed` (a tenant id that stays the same for one environment). */
function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Whether this machine lets a process add a key to its kernel user keyring (add_key(2), then
 * invalidated): azidentity/cache keeps the token cache's AES key there and runs without a cache
 * where it cannot. Asked of the kernel, not of kubelogin, so it can predict kubelogin.
 */
export async function keyringProbe(): Promise<{ usable: boolean; detail: string }> {
  const script = [
    'import ctypes, os, platform',
    'nr = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine())',
    'if nr is None: print("no syscall numbers for " + platform.machine()); raise SystemExit(2)',
    'libc = ctypes.CDLL(None, use_errno=True); libc.syscall.restype = ctypes.c_long',
    'k = libc.syscall(nr[0], b"user", b"credprov:keyring-probe", b"x", 1, ctypes.c_int(-4))',
    'if k < 0: print("add_key: " + os.strerror(ctypes.get_errno())); raise SystemExit(1)',
    'libc.syscall(nr[1], 21, ctypes.c_long(k)); print("add_key to the user keyring works")',
  ].join('\n');
  const r = await execa('python3', ['-c', script], { reject: false, timeout: 15_000 });
  return { usable: r.exitCode === 0, detail: String(r.stdout || r.stderr).trim() };
}
