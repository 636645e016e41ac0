// A registry container's output in the registry's log file, where the process
// provider's registry writes its own: testcontainers' log stream (stdout and
// stderr, demultiplexed) piped into the file. Readers of the file (readiness
// on failure, suites quoting the registry log) see the same text either way.
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';

export class LogCapture {
  readonly file: string;
  private readonly flags: string;
  private stream: Readable | undefined;
  private out: WriteStream | undefined;
  private endReason: string | undefined;
  private done: Promise<void> = Promise.resolve();

  /** `flags`: 'a' appends (a restart keeps the file the harness truncated); 'w' rewrites it from the container's first line. */
  constructor(file: string, flags: 'a' | 'w' = 'a') {
    this.file = file;
    this.flags = flags;
  }

  /** testcontainers' log consumer: called once the container started, with its whole output so far and what follows. */
  readonly capture = (stream: Readable): void => {
    this.stream = stream;
    const out = createWriteStream(this.file, { flags: this.flags });
    this.out = out;
    this.done = new Promise((resolve) => {
      out.once('close', () => resolve());
      out.once('error', () => resolve());
    });
    stream.once('end', () => {
      this.endReason ??= 'the registry container stopped (its output ended)';
    });
    stream.once('error', (err) => {
      this.endReason ??= `the registry container's output broke off: ${err.message}`;
      out.end();
    });
    stream.pipe(out);
  };

  /** Why the output ended, once it has (the container stopped); undefined while it runs. */
  readonly ended = (): string | undefined => this.endReason;

  /** Resolves once everything received is in the file (after the container stopped, or close()), or after `timeoutMs`. */
  flushed(timeoutMs?: number): Promise<void> {
    if (timeoutMs === undefined) return this.done;
    return Promise.race([this.done, new Promise<void>((r) => setTimeout(r, timeoutMs).unref())]);
  }

  /** Stops capturing and closes the file (another follower takes over, or the registry is gone). */
  async close(): Promise<void> {
    if (this.stream) {
      this.stream.unpipe(this.out);
      this.stream.destroy();
    }
    this.out?.end();
    await this.flushed(5000);
  }
}
