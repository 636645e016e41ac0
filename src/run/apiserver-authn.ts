// kube-apiserver's authenticators as the exec-plugin suites wire them: a
// token webhook (credprov's, reviewing with a TokenBook the suite scripts)
// that must answer where the API server was told at its start, so it listens
// on the environment's own address and port with a CA kept under the state
// dir, and an OIDC issuer for the structured JWT authenticator beside it.
import { startTokenWebhook, type StartedTokenWebhook, type TokenReviewer } from '../authn/token-webhook.ts';
import { ensureTokenWebhookFiles, type TokenWebhookFiles } from '../authn/webhook-files.ts';
import { TokenBook } from '../authn/token-book.ts';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SuiteSetup } from './suite.ts';

export { ensureAuthenticationConfig, jwtUsernameFor } from '../authn/authentication-config.ts';
export { startOidcIssuer, type StartedOidcIssuer } from '../authn/oidc-issuer.ts';
export { TokenBook, tokenFingerprint } from '../authn/token-book.ts';
export { EXEC_PLUGIN_GROUP, type StartedTokenWebhook } from '../authn/token-webhook.ts';
export { ensureTokenWebhookFiles, type TokenWebhookFiles } from '../authn/webhook-files.ts';

/**
 * The token webhook for this environment (stopped after the suite), reviewing
 * with `book`, or with a fake cloud's `reviewer` (its rules decide); each review is logged to webhook-reviews.jsonl in the suite's
 * artifacts. The spec's apiserver.tokenWebhookConfigFile is `files.kubeconfigFile`.
 */
export async function startTokenWebhookFor(
  ctx: SuiteSetup,
  review: TokenBook | { reviewer: TokenReviewer },
): Promise<{ hook: StartedTokenWebhook; files: TokenWebhookFiles }> {
  const files = await ensureTokenWebhookFiles(ctx.environmentName, ctx.processEnv);
  const reviewLog = join(ctx.artifactsDir, 'webhook-reviews.jsonl');
  // This run's reviews only (the log is appended to).
  await rm(reviewLog, { force: true });
  const hook = await ctx.own(
    startTokenWebhook({
      address: files.address,
      port: files.port,
      certFile: files.certFile,
      keyFile: files.keyFile,
      issueKeyFile: files.issueKeyFile,
      ...(review instanceof TokenBook ? { book: review } : review),
      reviewLog,
      log: ctx.log,
    }),
  );
  return { hook, files };
}
