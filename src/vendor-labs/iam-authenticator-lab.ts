// Everything needed to run the real aws-iam-authenticator, client and server,
// without AWS:
// - the plugin binary (cached build from the Go module proxy), behind a
//   recording wrapper that kubeconfigs exec;
// - fake STS over https on port 443 of a loopback address of its own, with a
//   certificate from a lab CA for sts.<region>.amazonaws.com, and an /etc/hosts
//   line (credprov's hosts helper, removed on stop) sending that name there:
//   tokens name the real STS hostname, and the authenticator calls nothing else;
// - IAM identities STS knows (a mapped user, an unmapped one) in a shared
//   credentials file with one profile each, plus profiles STS refuses (an
//   unknown key, a known key with the wrong secret, none at all);
// - `aws-iam-authenticator server` with a static user mapping, trusting the lab
//   CA through SSL_CERT_FILE, listening on 127.0.0.1, writing the webhook
//   kubeconfig that kube-apiserver's --authentication-token-webhook-config-file takes.
// The server also opens /healthz on :21363 on every interface; v0.7.18 offers
// no flag or config key for it (see aws-iam-authenticator.ts), so a lab cannot
// keep that one listener on loopback. Nothing else leaves 127.0.0.0/8.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { stopChild } from '../core/stop-child.ts';
import { freePort } from '../core/ports.ts';
import type { ExecEnvVar } from '../api/credentialprovider/types.ts';
import { CredprovError, tail } from '../core/errors.ts';
import { HostsFile } from '../core/hosts.ts';
import { noopLogger, type Logger } from '../core/logger.ts';
import { spawnTied } from '../core/tied-child.ts';
import { silentProgress, step, type Progress } from '../core/progress.ts';
import { TOKEN_PREFIX, type AuthenticatorSetup, type IdentityMapping } from '../model/aws-iam-authenticator.ts';
import type { TokenCommand } from '../model/eks-token-commands.ts';
import { IAM_AUTHENTICATOR_RECIPE, IAM_AUTHENTICATOR_VERSION } from '../plugin/vendors/aws-iam-authenticator.ts';
import { ensureVendorPlugin, type VendorPluginBinary } from '../plugin/vendors/build.ts';
import { installExecRecordingWrapper } from '../plugin/exec-recording-wrapper.ts';
import { writeUsersKubeconfig } from './users-kubeconfig.ts';
import { serveUnderHostnames } from '../fake-clouds/kit/index.ts';
import { FakeAws, newIamUser, type IamUser } from '../fake-clouds/aws/index.ts';
import type { AwsCliInstall } from '../plugin/vendors/aws-cli.ts';
import { presignGet } from '../api/aws/sigv4.ts';

/** The profiles of the lab's shared AWS files; `no-credentials` has a region and no keys. */
export type IamProfile = 'mapped' | 'unmapped' | 'unknown-key' | 'wrong-secret' | 'no-credentials';
const KEYED_PROFILES = ['mapped', 'unmapped', 'unknown-key', 'wrong-secret'] as const;

export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
}

const HOSTS_OWNER_PREFIX = 'vendor/aws-iam-authenticator/';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const V1 = 'client.authentication.k8s.io/v1';

export interface IamAuthenticatorLabOptions {
  dir: string;
  /** The cluster id both sides use (default: credprov-<random>). */
  clusterId?: string;
  /** The region tokens are signed for; its STS hostname is mapped to the lab (default us-west-2). */
  region?: string;
  account?: string;
  /** The mapped user's Kubernetes identity. */
  mapping?: { username: string; groups: string[] };
  /** Where the plugin build is cached (default: $CREDPROV_CACHE_DIR). */
  cacheDir?: string;
  progress?: Progress;
  log?: Logger;
  hostsFile?: HostsFile;
  /** awscli, for users whose token `aws eks get-token` makes (execFor's `via`). */
  awsCli?: AwsCliInstall;
}

export interface IamAuthenticatorLab {
  plugin: VendorPluginBinary;
  /** What kubeconfigs exec: the recording wrapper in front of the plugin. */
  command: string;
  /** Where the wrapper records each run (readExecRuns). */
  runsDir: string;
  /** `aws eks get-token` behind a recording wrapper of its own, when the lab was given awscli. */
  awsCli?: { install: AwsCliInstall; command: string; runsDir: string };
  /** Where the runs of `via`'s wrapper are recorded. */
  runsDirOf(via: TokenCommand): string;
  fake: FakeAws;
  /** Where the plugin's (forced-on) IMDS client is sent: the fake's recording catch-all. */
  imdsEndpoint: string;
  clusterId: string;
  region: string;
  stsHost: string;
  /** The loopback address stsHost resolves to while the lab runs. */
  stsAddress: string;
  /** For kube-apiserver's --authentication-token-webhook-config-file (written by the authenticator). */
  webhookKubeconfig: string;
  /** https://127.0.0.1:PORT/authenticate */
  serverUrl: string;
  serverLog: string;
  serverConfigFile: string;
  users: { mapped: IamUser; unmapped: IamUser };
  mappings: IdentityMapping[];
  /** The model's view of the lab (what STS knows, what the server maps). */
  setup(): AuthenticatorSetup;
  /**
   * The exec stanza of a kubeconfig user whose plugin signs with `profile`'s keys.
   * `direct`: the plugin binary itself rather than the recording wrapper (certification judges the binary).
   */
  execFor(
    profile: IamProfile,
    o?: { apiVersion?: 'v1' | 'v1beta1'; clusterId?: string; direct?: boolean; via?: TokenCommand },
  ): Record<string, unknown>;
  /** A kubeconfig for `server` with one user per entry (name → exec stanza or static token); mode 0600. */
  writeKubeconfig(
    file: string,
    cluster: { server: string; caFile?: string; caData?: string },
    users: Record<string, { exec: Record<string, unknown> } | { token: string }>,
    current?: string,
  ): Promise<string>;
  /**
   * A token the plugin itself cannot make: presigned by credprov the same way
   * (GetCallerIdentity, X-Amz-Expires 60), with a chosen signing time and with or
   * without the x-k8s-aws-id header.
   */
  presignToken(o: { user: AwsKeys; signedAtMs: number; clusterId?: string | null }): string;
  /** The keys a profile holds (none for no-credentials): what the plugin signs with under that profile. */
  keysOf(profile: IamProfile): AwsKeys | undefined;
  /** Moves the fake STS's clock (ms added to the real one). */
  setStsClockSkew(ms: number): void;
  /** The secrets in play (for a redactor, or a "nothing leaked" check). */
  secrets: string[];
  stop(): Promise<void>;
}

export async function startIamAuthenticatorLab(o: IamAuthenticatorLabOptions): Promise<IamAuthenticatorLab> {
  const progress = o.progress ?? silentProgress;
  const log = o.log ?? noopLogger;
  const plugin = await ensureVendorPlugin(IAM_AUTHENTICATOR_RECIPE, {
    version: IAM_AUTHENTICATOR_VERSION,
    progress,
    log,
    ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
  });
  if (!plugin) throw new CredprovError('aws-iam-authenticator was neither cached nor built');
  const region = o.region ?? 'us-west-2';
  const account = o.account ?? '111122223333';
  const clusterId = o.clusterId ?? `credprov-${randomBytes(4).toString('hex')}`;
  const stsHost = `sts.${region}.amazonaws.com`;
  const mapped = newIamUser('credprov-dev', account);
  const unmapped = newIamUser('credprov-stranger', account);
  const mapping = o.mapping ?? { username: 'credprov-dev', groups: ['credprov:iam-viewers'] };
  const mappings: IdentityMapping[] = [{ arn: `arn:aws:iam::${account}:user/${mapped.name}`, ...mapping }];
  const hosts = o.hostsFile ?? new HostsFile();
  let skewMs = 0;
  const fake = new FakeAws({
    users: [mapped, unmapped],
    logFile: join(o.dir, 'fake-sts-requests.jsonl'),
    clock: () => Date.now() + skewMs,
  });

  await mkdir(o.dir, { recursive: true, mode: 0o700 });
  let server: ChildProcess | undefined;
  let unmap: (() => Promise<void>) | undefined;
  const stop = async () => {
    // Its first SIGTERM only cancels the server's context (sample-controller's signal handler); the
    // listener keeps serving until a second signal. It keeps nothing worth a graceful exit: 1 s, then SIGKILL.
    await stopChild(server, 1_000);
    await fake.stop();
    await unmap?.();
  };
  try {
    const endpoints = await fake.start();
    // STS over https on 443 of a loopback address of its own, under its real name.
    const sts = await step(progress, `fake STS on https://${stsHost}`, () =>
      serveUnderHostnames(
        {
          hostnames: [stsHost],
          dir: o.dir,
          caName: 'credprov fake AWS CA',
          ownerPrefix: HOSTS_OWNER_PREFIX,
          hostsFile: hosts,
        },
        (at) => fake.serveStsTls(at),
      ),
    );
    unmap = sts.unmap;
    const stsAddress = sts.address;

    // Shared AWS files: the SDK's usual sources, so the kubeconfig carries no secret.
    const awsDir = join(o.dir, 'aws');
    await mkdir(awsDir, { recursive: true, mode: 0o700 });
    const stranger = newIamUser('credprov-never-issued', account);
    const keys: Record<(typeof KEYED_PROFILES)[number], AwsKeys> = {
      mapped,
      unmapped,
      'unknown-key': stranger,
      'wrong-secret': { accessKeyId: mapped.accessKeyId, secretAccessKey: randomBytes(30).toString('base64') },
    };
    const credentialsFile = join(awsDir, 'credentials');
    const configFile = join(awsDir, 'config');
    await writeFile(
      credentialsFile,
      KEYED_PROFILES.map(
        (p) =>
          `[${p}]\naws_access_key_id = ${keys[p].accessKeyId}\naws_secret_access_key = ${keys[p].secretAccessKey}\n`,
      ).join('\n'),
      { mode: 0o600 },
    );
    await writeFile(
      configFile,
      [...KEYED_PROFILES, 'no-credentials'].map((p) => `[profile ${p}]\nregion = ${region}\n`).join('\n'),
      { mode: 0o600 },
    );

    // The wrapper kubeconfigs exec.
    const runsDir = join(o.dir, 'runs');
    const command = await installExecRecordingWrapper({
      path: join(o.dir, 'aws-iam-authenticator'),
      target: plugin.path,
      logDir: runsDir,
    });

    const awsCli = o.awsCli && {
      install: o.awsCli,
      runsDir: join(o.dir, 'runs-aws-cli'),
      command: await installExecRecordingWrapper({
        path: join(o.dir, 'aws-eks-get-token'),
        target: o.awsCli.path,
        logDir: join(o.dir, 'runs-aws-cli'),
      }),
    };

    // The authenticator server: static mapping (MountedFile), state and kubeconfig in the lab dir.
    const port = await freePort('127.0.0.1');
    const stateDir = join(o.dir, 'server-state');
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    const webhookKubeconfig = join(o.dir, 'webhook.kubeconfig');
    const serverConfigFile = join(o.dir, 'server-config.yaml');
    await writeFile(
      serverConfigFile,
      stringify({
        clusterID: clusterId,
        server: {
          hostname: '127.0.0.1',
          mapUsers: mappings.map((m) => ({ userARN: m.arn, username: m.username, groups: m.groups })),
        },
      }),
      { mode: 0o600 },
    );
    const serverLog = join(o.dir, 'server.log');
    const args = [
      'server',
      '--config',
      serverConfigFile,
      '--address',
      '127.0.0.1',
      '--port',
      String(port),
      '--state-dir',
      stateDir,
      '--generate-kubeconfig',
      webhookKubeconfig,
      '--backend-mode',
      'MountedFile',
    ];
    server = await step(progress, `aws-iam-authenticator server on https://127.0.0.1:${port}`, () =>
      startServer({
        bin: plugin.path,
        args,
        logFile: serverLog,
        webhookKubeconfig,
        port,
        env: {
          PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
          HOME: o.dir,
          // Trust the lab CA (Go reads SSL_CERT_FILE instead of the system roots).
          SSL_CERT_FILE: sts.caFile,
          // No AWS account: no credentials, no IMDS (its endpoint is the recording catch-all besides).
          AWS_EC2_METADATA_DISABLED: 'true',
          AWS_EC2_METADATA_SERVICE_ENDPOINT: endpoints.other,
          AWS_CONFIG_FILE: '/dev/null',
          AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
          AWS_MAX_ATTEMPTS: '1',
        },
      }),
    );
    log.debug(`aws-iam-authenticator server pid ${server.pid}, log ${serverLog}`);

    const env = (profile: IamProfile): ExecEnvVar[] =>
      Object.entries({
        AWS_PROFILE: profile,
        AWS_SHARED_CREDENTIALS_FILE: credentialsFile,
        AWS_CONFIG_FILE: configFile,
        // IMDS: the token command forces its client on; the catch-all records any attempt.
        AWS_EC2_METADATA_DISABLED: 'true',
        AWS_EC2_METADATA_SERVICE_ENDPOINT: endpoints.other,
        // The user's environment must not pick other credentials, a role or a region: empty is unset.
        AWS_ACCESS_KEY_ID: '',
        AWS_SECRET_ACCESS_KEY: '',
        AWS_SESSION_TOKEN: '',
        AWS_WEB_IDENTITY_TOKEN_FILE: '',
        AWS_ROLE_ARN: '',
        AWS_CONTAINER_CREDENTIALS_FULL_URI: '',
        AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '',
        AWS_REGION: '',
        AWS_DEFAULT_REGION: '',
        AWS_ENDPOINT_URL: '',
        AWS_ENDPOINT_URL_STS: '',
        DEFAULT_ROLE: '',
      }).map(([name, value]) => ({ name, value }));
    // botocore reads an empty variable as set (aws-cli.ts): awscli gets only what it needs; the kubectl
    // that execs it runs in a clean environment, so nothing of the caller's reaches it either.
    const awsCliEnv = (profile: IamProfile): ExecEnvVar[] =>
      Object.entries({
        AWS_PROFILE: profile,
        AWS_SHARED_CREDENTIALS_FILE: credentialsFile,
        AWS_CONFIG_FILE: configFile,
        AWS_EC2_METADATA_DISABLED: 'true',
        AWS_EC2_METADATA_SERVICE_ENDPOINT: endpoints.other,
      }).map(([name, value]) => ({ name, value }));

    const stopped = { done: false };
    return {
      imdsEndpoint: endpoints.other,
      plugin,
      command,
      runsDir,
      ...(awsCli ? { awsCli } : {}),
      runsDirOf(via) {
        if (via === 'aws-iam-authenticator') return runsDir;
        if (!awsCli) throw new CredprovError('this lab was started without awscli (IamAuthenticatorLabOptions.awsCli)');
        return awsCli.runsDir;
      },
      fake,
      clusterId,
      region,
      stsHost,
      stsAddress,
      webhookKubeconfig,
      serverLog,
      serverConfigFile,
      serverUrl: `https://127.0.0.1:${port}/authenticate`,
      users: { mapped, unmapped },
      mappings,
      setup: () => ({
        clusterId,
        mappings,
        identities: [mapped, unmapped].map((u) => ({
          accessKeyId: u.accessKeyId,
          secretAccessKey: u.secretAccessKey,
          arn: `arn:aws:iam::${u.account}:user/${u.name}`,
        })),
      }),
      execFor(profile, x = {}) {
        const apiVersion = x.apiVersion === 'v1' ? V1 : V1BETA1;
        if (x.via === 'aws-eks-get-token') {
          if (!awsCli)
            throw new CredprovError('this lab was started without awscli (IamAuthenticatorLabOptions.awsCli)');
          // AWS's own `aws eks update-kubeconfig` form: args eks get-token --cluster-name <name>.
          return {
            apiVersion,
            command: x.direct ? awsCli.install.path : awsCli.command,
            args: ['eks', 'get-token', '--cluster-name', x.clusterId ?? clusterId],
            env: awsCliEnv(profile),
            ...(x.apiVersion === 'v1' ? { interactiveMode: 'Never' } : {}),
          };
        }
        // Upstream's README kubeconfig (v1beta1, no interactiveMode: IfAvailable); v1 needs one.
        return {
          apiVersion,
          command: x.direct ? plugin.path : command,
          args: ['token', '-i', x.clusterId ?? clusterId],
          env: env(profile),
          ...(x.apiVersion === 'v1' ? { interactiveMode: 'Never' } : {}),
        };
      },
      writeKubeconfig: writeUsersKubeconfig,
      presignToken({ user, signedAtMs, clusterId: forCluster = clusterId }) {
        const url = presignGet({
          url: `https://${stsHost}/`,
          params: [
            ['Action', 'GetCallerIdentity'],
            ['Version', '2011-06-15'],
          ],
          headers: forCluster === null ? {} : { 'x-k8s-aws-id': forCluster },
          region,
          service: 'sts',
          credentials: user,
          signedAtMs,
          expiresSeconds: 60,
        });
        return TOKEN_PREFIX + Buffer.from(url).toString('base64url');
      },
      keysOf(profile) {
        return profile === 'no-credentials' ? undefined : keys[profile];
      },
      setStsClockSkew(ms) {
        skewMs = ms;
      },
      secrets: [
        mapped.secretAccessKey,
        unmapped.secretAccessKey,
        stranger.secretAccessKey,
        keys['wrong-secret'].secretAccessKey,
      ],
      async stop() {
        if (stopped.done) return;
        stopped.done = true;
        await stop();
      },
    };
  } catch (err) {
    await stop().catch((e: unknown) => log.warn(`cleanup after a failed lab start: ${(e as Error).message}`));
    throw err;
  }
}

/**
 * The kubeconfig users `credprov certify exec-plugin` judges: upstream's v1beta1 form, and v1;
 * the same for `aws eks get-token` when the lab has awscli.
 */
export const CERTIFY_USERS = {
  v1beta1: 'aws-iam-authenticator',
  v1: 'aws-iam-authenticator-v1',
  'awscli-v1beta1': 'aws-eks-get-token',
  'awscli-v1': 'aws-eks-get-token-v1',
} as const;

/**
 * A kubeconfig whose users exec the command itself (no wrapper) with the mapped
 * profile. Certification contacts no cluster: the placeholder server only fills
 * spec.cluster, as `certify exec-plugin --command` does.
 */
export function writeCertifyKubeconfig(lab: IamAuthenticatorLab, file: string): Promise<string> {
  type Users = Record<string, { exec: Record<string, unknown> }>;
  const awsCli: Users = lab.awsCli
    ? {
        [CERTIFY_USERS['awscli-v1beta1']]: { exec: lab.execFor('mapped', { direct: true, via: 'aws-eks-get-token' }) },
        [CERTIFY_USERS['awscli-v1']]: {
          exec: lab.execFor('mapped', { direct: true, via: 'aws-eks-get-token', apiVersion: 'v1' }),
        },
      }
    : {};
  return lab.writeKubeconfig(
    file,
    { server: 'https://kubernetes.credprov.test:6443' },
    {
      [CERTIFY_USERS.v1beta1]: { exec: lab.execFor('mapped', { direct: true }) },
      [CERTIFY_USERS.v1]: { exec: lab.execFor('mapped', { direct: true, apiVersion: 'v1' }) },
      ...awsCli,
    },
  );
}

async function startServer(o: {
  bin: string;
  args: string[];
  env: Record<string, string>;
  logFile: string;
  webhookKubeconfig: string;
  port: number;
}): Promise<ChildProcess> {
  const fd = openSync(o.logFile, 'a', 0o600);
  // Tied to credprov: a credprov killed by SIGKILL must not leave the server listening.
  const child = spawnTied(o.bin, o.args, { env: o.env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.on('error', () => {});
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new CredprovError(
          `aws-iam-authenticator server exited (${child.exitCode ?? child.signalCode}) before it listened`,
          { detail: tail(await readFile(o.logFile, 'utf8').catch(() => ''), 20), hint: `log: ${o.logFile}` },
        );
      }
      const written = await stat(o.webhookKubeconfig).then(
        () => true,
        () => false,
      );
      if (written && (await accepts('127.0.0.1', o.port))) return child;
      if (Date.now() > deadline)
        throw new CredprovError(`aws-iam-authenticator server did not listen on 127.0.0.1:${o.port} within 30s`, {
          detail: tail(await readFile(o.logFile, 'utf8').catch(() => ''), 20),
          hint: `log: ${o.logFile}`,
        });
      await sleep(50);
    }
  } catch (err) {
    await stopChild(child, 2_000);
    throw err;
  }
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port }, () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
