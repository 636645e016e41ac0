// The OKE lab: what the vendor-oci suite starts before any environment
// exists. The real `oci` (oci-cli from PyPI, its cached venv) behind the exec
// recording wrapper; an API key (RSA, its fingerprint as OCI computes it) and
// the ~/.oci/config profile a user's home holds; fake OCI (src/fake-clouds/oci)
// knowing that key; and credprov's token webhook on the environment's address,
// standing in for OKE's authenticator: it asks the fake Container Engine about
// each token's signed request and answers the TokenReview with the user's OCID,
// or with OCI's refusal.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ociKeyFingerprint } from '../api/oci/request-signature.ts';
import type { Review } from '../authn/token-webhook.ts';
import { cacheDir } from '../core/paths.ts';
import { FakeOci, type OciRecord } from '../fake-clouds/oci/index.ts';
import { installExecRecordingWrapper, readExecRuns, type RecordedExecRun } from '../plugin/exec-recording-wrapper.ts';
import { ensureOciCli, OCI_CLI_VERSION } from '../plugin/vendors/oci-cli.ts';
import { startTokenWebhookFor } from '../run/apiserver-authn.ts';
import type { SuiteSetup } from '../run/suite.ts';

export { OCI_CLI_VERSION } from '../plugin/vendors/oci-cli.ts';
export type { OciRecord };

export interface OciLabOptions {
  region: string;
  /** The line OCI's console appends to a key it generates (oci-cli warns about a key without it). */
  keyLabel: string;
}

export interface OciIdentity {
  tenancy: string;
  user: string;
  fingerprint: string;
  region: string;
  clusterId: string;
}

export interface OciLab {
  identity: OciIdentity;
  /** The wrapper in front of venv/bin/oci: the exec command. */
  command: string;
  /** kube-apiserver's token webhook kubeconfig (spec apiserver.tokenWebhookConfigFile). */
  webhookKubeconfig: string;
  /** Writes ~/.oci/config (and the key) into `home`: the registered key, another key, or a key_file that is not there. */
  profile(home: string, key?: 'registered' | 'unregistered' | 'missing'): Promise<void>;
  runs(): Promise<RecordedExecRun[]>;
  oci(): OciRecord[];
  reviews(): Review[];
}

export async function startOciLab(ctx: SuiteSetup, o: OciLabOptions): Promise<OciLab> {
  const cli = await ensureOciCli({ cacheDir: cacheDir(ctx.processEnv), progress: ctx.progress, log: ctx.log });
  if (!cli) throw new Error(`oci-cli ${OCI_CLI_VERSION} was neither cached nor installed`);
  const id = () => randomBytes(12).toString('hex');
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyPem = String(key.publicKey.export({ type: 'spki', format: 'pem' }));
  const privatePem = String(key.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  ctx.redactor.add(privatePem);
  const identity: OciIdentity = {
    tenancy: `ocid1.tenancy.oc1..aaaa${id()}`,
    user: `ocid1.user.oc1..aaaa${id()}`,
    fingerprint: ociKeyFingerprint(publicKeyPem),
    region: o.region,
    clusterId: `ocid1.cluster.oc1.iad.aaaa${id()}`,
  };
  const fake = new FakeOci({
    region: o.region,
    clusters: [identity.clusterId],
    keys: [{ tenancy: identity.tenancy, user: identity.user, fingerprint: identity.fingerprint, publicKeyPem }],
    logFile: join(ctx.artifactsDir, 'fake-oci-requests.jsonl'),
  });
  ctx.defer(() => fake.stop());
  // OKE's authenticator: Container Engine says who signed the token's request, or why not.
  const { hook, files } = await startTokenWebhookFor(ctx, {
    reviewer: async (token) => {
      const a = await fake.answerToken(token);
      return a.ok
        ? { ok: true, subject: a.user, username: a.user, groups: [] }
        : { ok: false, reason: `${a.status} ${a.code}: ${a.message}` };
    },
  });
  // Each run's stdout holds a live token until the suite ends: a private temp dir, removed after.
  const runsDir = await mkdtemp(join(tmpdir(), 'credprov-oci-runs-'));
  ctx.defer(() => rm(runsDir, { recursive: true, force: true }));
  await mkdir(join(ctx.artifactsDir, 'bin'), { recursive: true });
  const command = await installExecRecordingWrapper({
    path: join(ctx.artifactsDir, 'bin', 'oci'),
    target: cli.path,
    logDir: runsDir,
  });
  return {
    identity,
    command,
    webhookKubeconfig: files.kubeconfigFile,
    async profile(home, which = 'registered') {
      const dir = join(home, '.oci');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const keyFile = join(dir, which === 'missing' ? 'oci_api_key_missing.pem' : 'oci_api_key.pem');
      if (which !== 'missing') {
        const pem =
          which === 'registered'
            ? privatePem
            : String(
                generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
              );
        ctx.redactor.add(pem);
        await writeFile(keyFile, `${pem}${o.keyLabel}\n`, { mode: 0o600 });
      }
      const profile = [
        '[DEFAULT]',
        `user=${identity.user}`,
        `fingerprint=${identity.fingerprint}`,
        `key_file=${keyFile}`,
        `tenancy=${identity.tenancy}`,
        `region=${identity.region}`,
      ];
      await writeFile(join(dir, 'config'), `${profile.join('\n')}\n`, { mode: 0o600 });
    },
    runs: () => readExecRuns(runsDir),
    oci: () => fake.requests(),
    reviews: () => hook.reviews(),
  };
}
