// kubectl as a user runs it with a kuberc (KEP-3104): another minor's kubectl
// from credprov's cache, run in an environment of PATH, HOME and KUBERC alone,
// so the policy it applies comes from the case's files and nothing of the
// caller's. kubectlAs (client-session.ts) is the other form: kuberc off. And a
// ServiceAccount token from the API server, for a fake exec plugin to hand to
// kubectl: a credential the real API server accepts, with no authenticator to
// configure.
import { execa } from 'execa';
import { resolveKubeBinaries } from '../cluster/binaries/index.ts';
import { kubeApi, type ApiTarget } from '../cluster/api.ts';
import type { Logger } from '../core/logger.ts';
import { cacheDir } from '../core/paths.ts';
import { step, type Progress } from '../core/progress.ts';

export interface KubectlBuildContext {
  progress: Progress;
  log: Logger;
  processEnv: NodeJS.ProcessEnv;
}

/** The kubectl of `version` ("1.35.4" or a minor) in credprov's cache, built there first if it is not. */
export async function ensureKubectl(
  ctx: KubectlBuildContext,
  version: string,
  why: string,
): Promise<{ version: string; kubectl: string }> {
  const resolved = await step(ctx.progress, `kubectl ${version} for ${why} (a first-time build takes 2-4 min)`, () =>
    resolveKubeBinaries({
      version,
      names: ['kubectl'],
      cacheDir: cacheDir(ctx.processEnv),
      progress: ctx.progress,
      log: ctx.log,
    }),
  );
  return { version: resolved.version, kubectl: resolved.kubectl };
}

export interface KubercRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * `kubectl args…` with nothing in its environment but PATH, HOME and, when
 * given, KUBERC (a file, or 'off'); without it kubectl reads $HOME/.kube/kuberc.
 */
export async function kubectlWithKuberc(
  kubectl: string,
  o: { args: string[]; path: string[]; home: string; kuberc?: string; timeoutMs: number },
): Promise<KubercRun> {
  const r = await execa(kubectl, o.args, {
    reject: false,
    timeout: o.timeoutMs,
    extendEnv: false,
    env: { PATH: o.path.join(':'), HOME: o.home, ...(o.kuberc !== undefined ? { KUBERC: o.kuberc } : {}) },
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr).slice(-4000) };
}

/** A TokenRequest for a ServiceAccount (default audience, `seconds` long): what a fake exec plugin may answer. */
export async function serviceAccountToken(
  env: ApiTarget,
  namespace: string,
  name: string,
  seconds = 600,
): Promise<string> {
  const answer = await (
    await kubeApi(env)
  ).core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: seconds } },
  });
  const token = answer.status?.token;
  if (!token) throw new Error(`the API server answered the TokenRequest for ${namespace}/${name} without a token`);
  return token;
}
