// `aws eks get-token` from PyPI's awscli (AWS CLI v1), unmodified: the Python
// implementation of the EKS token that aws-iam-authenticator's `token` makes in
// Go. Installed once into a venv of its own under the cache
// (cluster/binaries/pypi-venv.ts): <cacheDir>/plugins/aws-cli/<version>/{venv/,manifest.json}.
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
import { join } from 'node:path';
import { ensurePypiVenv, type PypiVenvInstall, type PypiVenvManifest } from '../../cluster/binaries/pypi-venv.ts';
import type { Logger } from '../../core/logger.ts';
import { cacheDir as defaultCacheDir } from '../../core/paths.ts';
import type { Progress } from '../../core/progress.ts';

/** The newest AWS CLI v1 on PyPI when it was pinned (it pins botocore exactly). */
export const AWS_CLI_VERSION = '1.46.3';
/** Where the behaviour above lives, for check sources. */
export const AWS_CLI_SOURCE = `awscli ${AWS_CLI_VERSION} awscli/customizations/eks/get_token.py`;

export type AwsCliManifest = PypiVenvManifest;
export type AwsCliInstall = PypiVenvInstall;

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

/** The cached install of `version`, installed from PyPI first unless `cachedOnly`. */
export function ensureAwsCli(o: AwsCliOptions = {}): Promise<AwsCliInstall | undefined> {
  const version = o.version ?? AWS_CLI_VERSION;
  return ensurePypiVenv(
    { package: 'awscli', version, dir: awsCliDir(version, o.cacheDir ?? defaultCacheDir()), entry: 'aws' },
    o,
  );
}
