// Waiting for the cluster as client-go's reflector does: list, then watch
// from the list's resourceVersion, so no change falls between the two. A
// watch the server ends (its timeout, a dropped connection) is reopened from
// the last resourceVersion seen; one whose resourceVersion is too old (410
// Gone / Expired) starts over with a fresh list. The caller's time limit holds
// across all of it, and the watch is closed however the wait ends, so no
// socket outlives it.
import { TimeoutError } from '../core/errors.ts';
import { ApiError, apiError, type KubeApi, type WatchEventType } from './api.ts';
import { sleep } from '../core/time.ts';

export interface ObjectMeta {
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

/** One state of a watched object: as listed, or as a watch event reported it. */
export interface Change<T> {
  type: 'LISTED' | 'ADDED' | 'MODIFIED' | 'DELETED';
  object: T;
}

export interface WatchSpec<T> {
  /** What is awaited, for messages: `pod default/x to complete or fail its pull`. */
  what: string;
  /** The list: its items and resourceVersion. */
  list(): Promise<{ items: T[]; resourceVersion: string | undefined }>;
  /** The collection path the watch opens, with the list's selectors. */
  path: string;
  query?: Record<string, string>;
  /** Wire object → typed (api.decode). */
  decode(object: unknown): T;
  timeoutMs: number;
  /** The timeout error's message, given the wait's state (the last object seen, say). Default: `<what>: no outcome within Ns`. */
  timeoutMessage?: () => string;
}

/** Reopening a watch that fails at once waits a little longer each time, up to this. */
const MAX_BACKOFF_MS = 2000;

type Session<R> = { value: R } | { relist: true } | { ended: unknown };

/**
 * Feeds every state of the listed and watched objects to `step` until it
 * returns something other than undefined, and returns that. `step` may throw
 * (the object went away, say); the error ends the wait. Throws TimeoutError
 * when `timeoutMs` passes first.
 */
export async function watchUntil<T extends ObjectMeta, R>(
  api: KubeApi,
  spec: WatchSpec<T>,
  step: (change: Change<T>) => R | undefined,
): Promise<R> {
  /** Where the next watch starts; undefined: list first. */
  let resourceVersion: string | undefined;
  let lastWatchError: unknown;
  let finished = false;
  const open = new Set<() => void>();

  /** One watch, until `step` answers, the server ends it, or it must start over (410). */
  const session = (from: string): Promise<Session<R>> =>
    new Promise((resolve, reject) => {
      let settled = false;
      let controller: AbortController | undefined;
      const close = () => controller?.abort();
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        open.delete(close);
        close();
        fn();
      };
      open.add(close);
      const onEvent = (type: WatchEventType, raw: unknown) => {
        if (settled) return;
        try {
          if (type === 'ERROR') {
            const status = raw as { code?: number; reason?: string; message?: string };
            if (status.code === 410) return settle(() => resolve({ relist: true }));
            const reason = `watch ${spec.path}: HTTP ${status.code ?? '?'}${status.reason ? ` ${status.reason}` : ''}${status.message ? `: ${status.message}` : ''}`;
            return settle(() =>
              reject(
                new ApiError(reason, {
                  ...(status.code ? { status: status.code } : {}),
                  ...(status.reason ? { statusReason: status.reason } : {}),
                }),
              ),
            );
          }
          resourceVersion = (raw as ObjectMeta).metadata?.resourceVersion ?? resourceVersion;
          if (type === 'BOOKMARK') return;
          const value = step({ type, object: spec.decode(raw) });
          if (value !== undefined) settle(() => resolve({ value }));
        } catch (err) {
          settle(() => reject(err));
        }
      };
      const ended = (err: unknown) =>
        settle(() =>
          resolve((err as { statusCode?: number } | null)?.statusCode === 410 ? { relist: true } : { ended: err }),
        );
      api
        .openWatch(spec.path, { ...spec.query, resourceVersion: from, allowWatchBookmarks: true }, onEvent, ended)
        .then((c) => {
          controller = c;
          if (settled || finished) c.abort();
        }, ended);
    });

  const run = async (): Promise<R> => {
    let backoffMs = 100;
    while (!finished) {
      if (resourceVersion === undefined) {
        const listed = await spec.list();
        for (const object of listed.items) {
          if (finished) break;
          const value = step({ type: 'LISTED', object });
          if (value !== undefined) return value;
        }
        resourceVersion = listed.resourceVersion ?? '';
        continue;
      }
      const startedAt = Date.now();
      const s = await session(resourceVersion);
      if ('value' in s) return s.value;
      if (finished) break;
      if ('relist' in s) {
        resourceVersion = undefined;
        continue;
      }
      // A server-side timeout or a dropped connection is normal: reopen from where it stopped.
      // A refusal (403, 404 …) will not get better by asking again.
      const status = (s.ended as { statusCode?: number } | null)?.statusCode;
      if (status !== undefined && status >= 400 && status < 500 && status !== 429)
        throw apiError(s.ended, `watch ${spec.path}`, api.server);
      if (s.ended) lastWatchError = s.ended;
      if (Date.now() - startedAt < 1000) {
        await sleep(backoffMs);
        backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
      } else backoffMs = 100;
    }
    throw new Error(`${spec.what}: wait abandoned`);
  };

  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const base = spec.timeoutMessage?.() ?? `${spec.what}: no outcome within ${Math.round(spec.timeoutMs / 1000)}s`;
      reject(
        new TimeoutError(
          lastWatchError ? `${base} (last watch error: ${apiError(lastWatchError, 'watch', api.server).reason})` : base,
        ),
      );
    }, spec.timeoutMs);
  });
  const running = run();
  // After a timeout the loop notices `finished` on its own; its late failure is not news.
  running.catch(() => {});
  try {
    return await Promise.race([running, expired]);
  } finally {
    finished = true;
    clearTimeout(timer);
    for (const close of open) close();
    open.clear();
  }
}
