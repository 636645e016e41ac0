// credprov's token webhook (authentication.k8s.io/v1 TokenReview) on loopback
// HTTPS: the kube-apiserver asks it whether a bearer token is valid
// (--authentication-token-webhook-config-file), and a plugin under test asks
// it for a fresh token (POST /issue, with the issuing key). Tokens are issued,
// expired and revoked in process through `book`; every review is recorded
// with the token's fingerprint, the time and the verdict, never the token.
import { appendFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { type Logger, noopLogger } from '../core/logger.ts';
import { TokenBook, tokenFingerprint, type Verdict } from './token-book.ts';

export const TOKEN_REVIEW_PATH = '/authenticate';
export const ISSUE_PATH = '/issue';
/** The header a plugin sends the issuing key in (read from the key file the scenario names). */
export const ISSUE_KEY_HEADER = 'x-credprov-issue-key';
/** The group every token the webhook accepts belongs to: RBAC grants the exec plugin's user through it. */
export const EXEC_PLUGIN_GROUP = 'credprov:exec-plugin';

export interface Review {
  at: string;
  /** ms since epoch, for arithmetic. */
  atMs: number;
  fingerprint: string;
  verdict: Verdict;
  subject?: string;
  username?: string;
  /** spec.audiences the API server sent. */
  audiences?: string[];
  /** Why a reviewer refused the token (its cloud's own words). */
  reason?: string;
}

/** A token's review by another authority than the book (a fake cloud's rules): who it is, or why not. */
export type TokenReviewer = (
  token: string,
) => Promise<{ ok: true; subject: string; username: string; groups: string[] } | { ok: false; reason: string }>;

export interface Issue {
  at: string;
  fingerprint: string;
  subject: string;
  expiresAt?: string;
  /** Issued already revoked (IssuePolicy.rejectNext). */
  rejected: boolean;
}

export interface TokenWebhookOptions {
  address: string;
  port: number;
  /** PEM files of the serving certificate (its SANs must name `address`). */
  certFile: string;
  keyFile: string;
  /** File holding the key POST /issue demands. */
  issueKeyFile: string;
  book?: TokenBook;
  /** Reviews tokens instead of the book (the book still issues through POST /issue). */
  reviewer?: TokenReviewer;
  /** Every review is also appended here as a JSON line (evidence that outlives the process). */
  reviewLog?: string;
  log?: Logger;
}

export interface StartedTokenWebhook {
  /** https://address:port */
  url: string;
  book: TokenBook;
  reviews(): Review[];
  issues(): Issue[];
  /** Username the API server sees for tokens issued to `subject`. */
  usernameFor(subject: string): string;
  stop(): Promise<void>;
}

export function usernameFor(subject: string): string {
  return `credprov:exec:${subject}`;
}

export async function startTokenWebhook(o: TokenWebhookOptions): Promise<StartedTokenWebhook> {
  const log = (o.log ?? noopLogger).child('token-webhook');
  const book = o.book ?? new TokenBook();
  const issueKey = (await readFile(o.issueKeyFile, 'utf8')).trim();
  const reviews: Review[] = [];
  const issues: Issue[] = [];

  const record = (r: Review) => {
    reviews.push(r);
    if (!o.reviewLog) return;
    // Written before the answer goes out, so whoever saw the answer finds the line (a few short lines a second).
    try {
      appendFileSync(o.reviewLog, `${JSON.stringify(r)}\n`);
    } catch (e) {
      log.warn(`review log: ${(e as Error).message}`);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST')
      return reply(res, 405, { error: `${req.method} not allowed; POST ${TOKEN_REVIEW_PATH} or ${ISSUE_PATH}` });
    const body = await readBody(req);
    // The API server's client adds ?timeout=…; only the path names the endpoint.
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    if (path === TOKEN_REVIEW_PATH) {
      let review: { apiVersion?: string; kind?: string; spec?: { token?: string; audiences?: string[] } };
      try {
        review = JSON.parse(body);
      } catch {
        return reply(res, 400, { error: 'body is not JSON: expected an authentication.k8s.io/v1 TokenReview' });
      }
      const token = review.spec?.token ?? '';
      if (o.reviewer) return reply(res, 200, await reviewed(o.reviewer, token, review, record));
      const found = book.lookup(token);
      const at = Date.now();
      const subject = found.token?.subject;
      const username = found.verdict === 'authenticated' && subject ? usernameFor(subject) : undefined;
      record({
        at: new Date(at).toISOString(),
        atMs: at,
        fingerprint: tokenFingerprint(token),
        verdict: found.verdict,
        ...(subject ? { subject } : {}),
        ...(username ? { username } : {}),
        ...(review.spec?.audiences ? { audiences: review.spec.audiences } : {}),
      });
      const status = username
        ? { authenticated: true, user: { username, uid: found.token!.fingerprint, groups: [EXEC_PLUGIN_GROUP] } }
        : { authenticated: false, error: `token ${found.verdict}` };
      // The answer must be in the version the API server asked in (--authentication-token-webhook-version=v1).
      return reply(res, 200, {
        apiVersion: review.apiVersion ?? 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        status,
      });
    }
    if (path === ISSUE_PATH) {
      const presented = String(req.headers[ISSUE_KEY_HEADER] ?? '');
      if (!sameSecret(presented, issueKey))
        return reply(res, 401, { error: `POST ${ISSUE_PATH} needs the issuing key in the ${ISSUE_KEY_HEADER} header` });
      let subject: unknown;
      try {
        subject = (JSON.parse(body || '{}') as { subject?: unknown }).subject;
      } catch {
        return reply(res, 400, { error: 'body is not JSON: expected {"subject": "<name>"}' });
      }
      if (typeof subject !== 'string' || !/^[a-z0-9][a-z0-9.-]{0,62}$/.test(subject))
        return reply(res, 400, {
          error: 'subject: expected a lower-case name (a-z, 0-9, ., -), at most 63 characters',
        });
      const t = book.issue(subject);
      issues.push({
        at: new Date(t.issuedAt).toISOString(),
        fingerprint: t.fingerprint,
        subject,
        ...(t.expiresAt !== undefined ? { expiresAt: new Date(t.expiresAt).toISOString() } : {}),
        rejected: t.revokedAt !== undefined,
      });
      return reply(res, 200, {
        token: t.token,
        fingerprint: t.fingerprint,
        ...(t.expiresAt !== undefined ? { expirationTimestamp: new Date(t.expiresAt).toISOString() } : {}),
      });
    }
    return reply(res, 404, { error: `no such endpoint ${path}; POST ${TOKEN_REVIEW_PATH} or ${ISSUE_PATH}` });
  };

  const [cert, key] = await Promise.all([readFile(o.certFile), readFile(o.keyFile)]);
  const server: Server = createServer({ cert, key }, (req, res) => {
    handle(req, res).catch((e: unknown) => {
      log.warn(`request ${req.method} ${req.url}: ${(e as Error).message}`);
      if (!res.headersSent) reply(res, 500, { error: 'token webhook failed' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new Error(
              `token webhook: ${o.address}:${o.port} is in use (a webhook of this environment left running by another credprov process?)`,
            )
          : e,
      ),
    );
    server.listen({ host: o.address, port: o.port, exclusive: true }, () => resolve());
  });
  log.debug(`listening on https://${o.address}:${o.port}`);
  let stopped: Promise<void> | undefined;
  return {
    url: `https://${o.address}:${o.port}`,
    book,
    reviews: () => reviews.map((r) => ({ ...r })),
    issues: () => issues.map((i) => ({ ...i })),
    usernameFor,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

/** A TokenReview answered by `reviewer`, recorded like the book's. */
async function reviewed(
  reviewer: TokenReviewer,
  token: string,
  review: { apiVersion?: string; spec?: { audiences?: string[] } },
  record: (r: Review) => void,
): Promise<unknown> {
  const at = Date.now();
  const v = await reviewer(token);
  record({
    at: new Date(at).toISOString(),
    atMs: at,
    fingerprint: tokenFingerprint(token),
    verdict: v.ok ? 'authenticated' : 'unknown',
    ...(v.ok ? { subject: v.subject, username: v.username } : { reason: v.reason }),
    ...(review.spec?.audiences ? { audiences: review.spec.audiences } : {}),
  });
  const status = v.ok
    ? { authenticated: true, user: { username: v.username, uid: tokenFingerprint(token), groups: v.groups } }
    : { authenticated: false, error: v.reason };
  return { apiVersion: review.apiVersion ?? 'authentication.k8s.io/v1', kind: 'TokenReview', status };
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

async function readBody(req: IncomingMessage, limit = 1 << 20): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > limit) throw new Error(`request body over ${limit} bytes`);
  }
  return body;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
