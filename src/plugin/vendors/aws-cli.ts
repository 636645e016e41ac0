// `aws eks get-token` from PyPI's awscli (AWS CLI v1), unmodified: the Python
// implementation of the EKS token that aws-iam-authenticator's `token` makes in
// Go. Installed once into a venv of its own under the cache:
// <cacheDir>/plugins/aws-cli/<version>/{venv/,manifest.json}.
//
// A venv is not relocatable (its scripts name their interpreter by absolute
// path), so unlike the Go builds it cannot be made in a staging dir and renamed:
// it is made in place under a lock, and manifest.json, written last, is what
// makes the entry usable. An entry without one is a failed install, redone.
//
// What `aws eks get-token --cluster-name <id>` does, read from awscli 1.46.3
// (awscli/customizations/eks/get_token.py) and confirmed by running it:
// - no network call: botocore presigns STS GetCallerIdentity (X-Amz-Expires 60,
//   x-k8s-aws-id signed) for the profile's region (the regional endpoint
//   https://sts.<region>.amazonaws.com/; with no region at all, us-east-1 and the
//   global https://sts.amazonaws.com/) and prints "k8s-aws-v1." + base64url(url);
// - expirationTimestamp = now + 14 min (TOKEN_EXPIRATION_MINS), apiVersion the one
//   KUBERNETES_EXEC_INFO names (v1beta1 when it is absent or unparsable);
// - without credentials it exits 255 with "Unable to locate credentials"; it honours
//   AWS_EC2_METADATA_DISABLED, so it does not ask IMDS.
// - botocore reads an EMPTY variable as set: AWS_DEFAULT_REGION="" makes the endpoint
//   https://sts..amazonaws.com (an error), and AWS_CONTAINER_CREDENTIALS_RELATIVE_URI=""
//   makes it ask the ECS metadata address 169.254.170.2. aws-sdk-go reads both as
//   unset. So an exec env that blanks variables to keep the caller's out (as the
//   Go plugin's may) must not be given to awscli.
import { execa } from 'execa';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withLock } from '../../cluster/binaries/cache.ts';
import { PrerequisiteError, tail } from '../../core/errors.ts';
import { noopLogger, type Logger } from '../../core/logger.ts';
import { cacheDir as defaultCacheDir } from '../../core/paths.ts';
import { silentProgress, step, type Progress } from '../../core/progress.ts';

/** The newest AWS CLI v1 on PyPI when it was pinned (it pins botocore exactly). */
export const AWS_CLI_VERSION = '1.46.3';
/** Where the behaviour above lives, for check sources. */
export const AWS_CLI_SOURCE = `awscli ${AWS_CLI_VERSION} awscli/customizations/eks/get_token.py`;

export interface AwsCliManifest {
  version: string;
  python: string;
  /** `pip freeze` of the venv: every package and version the install resolved. */
  packages: string[];
  installedAt: string;
  installSeconds: number;
}

export interface AwsCliInstall {
  version: string;
  /** The `aws` entry point in the venv. */
  path: string;
  dir: string;
  manifest: AwsCliManifest;
  fromCache: boolean;
}

export interface AwsCliOptions {
  version?: string;
  cacheDir?: string;
  progress?: Progress;
  log?: Logger;
  /** Never install: undefined when it is not cached (availability checks). */
  cachedOnly?: boolean;
  /** The interpreter the venv is made with (default python3 on PATH). */
  python?: string;
}

export function awsCliDir(version = AWS_CLI_VERSION, cacheDir = defaultCacheDir()): string {
  return join(cacheDir, 'plugins', 'aws-cli', version);
}

async function usable(dir: string, version: string): Promise<AwsCliManifest | undefined> {
  const manifest = await readFile(join(dir, 'manifest.json'), 'utf8').then(
    (t) => JSON.parse(t) as AwsCliManifest,
    () => undefined,
  );
  return manifest?.version === version ? manifest : undefined;
}

/** The cached install of `version`, installed from PyPI first unless `cachedOnly`. */
export async function ensureAwsCli(o: AwsCliOptions = {}): Promise<AwsCliInstall | undefined> {
  const version = o.version ?? AWS_CLI_VERSION;
  const dir = awsCliDir(version, o.cacheDir ?? defaultCacheDir());
  const found = (manifest: AwsCliManifest, fromCache: boolean): AwsCliInstall => ({
    version,
    path: join(dir, 'venv', 'bin', 'aws'),
    dir,
    manifest,
    fromCache,
  });
  const cached = await usable(dir, version);
  if (cached || o.cachedOnly) return cached && found(cached, true);
  const progress = o.progress ?? silentProgress;
  const log = o.log ?? noopLogger;
  return withLock(
    `${dir}.lock`,
    async () => {
      // Another credprov may have installed it while this one waited.
      const meanwhile = await usable(dir, version);
      if (meanwhile) return found(meanwhile, true);
      const manifest = await step(progress, `awscli ${version} from PyPI into ${dir}`, () =>
        install(dir, version, o.python ?? 'python3', log),
      );
      return found(manifest, false);
    },
    { onWait: (pid) => progress.note(`waiting for credprov pid ${pid}, which is installing awscli ${version}`) },
  );
}

async function install(dir: string, version: string, python: string, log: Logger): Promise<AwsCliManifest> {
  const started = Date.now();
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const venv = join(dir, 'venv');
  const run = async (file: string, args: string[], what: string, hint: string) => {
    const r = await execa(file, args, { reject: false, all: true, env: { PIP_NO_INPUT: '1' } });
    if (r.exitCode !== 0) {
      await rm(dir, { recursive: true, force: true });
      throw new PrerequisiteError(`${what} failed (exit ${r.exitCode ?? r.signal})`, {
        detail: tail(String(r.all ?? ''), 15),
        hint,
      });
    }
    return String(r.stdout);
  };
  await run(python, ['-m', 'venv', venv], `${python} -m venv ${venv}`, 'apt-get install python3-venv');
  const pip = join(venv, 'bin', 'pip');
  await run(
    pip,
    ['install', '--quiet', '--disable-pip-version-check', `awscli==${version}`],
    `pip install awscli==${version}`,
    'awscli comes from PyPI: check that PyPI is reachable (pip config, proxy)',
  );
  const packages = (await run(pip, ['freeze', '--all'], 'pip freeze', 'the venv is broken: remove it and retry'))
    .split('\n')
    .filter(Boolean);
  const pythonVersion = (
    await run(join(venv, 'bin', 'python'), ['--version'], 'python --version', 'the venv is broken')
  ).trim();
  const manifest: AwsCliManifest = {
    version,
    python: pythonVersion,
    packages,
    installedAt: new Date().toISOString(),
    installSeconds: Math.round((Date.now() - started) / 100) / 10,
  };
  await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  log.debug(`awscli ${version} installed in ${manifest.installSeconds}s: ${packages.join(' ')}`);
  return manifest;
}
