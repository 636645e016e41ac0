// How much of a plugin's output credprov keeps. The kubelet and client-go
// read all of stdout, with no cap, so credprov reads all of it too and keeps
// what can decide their verdict:
//   - stdout up to MAX_STDOUT_BYTES, a limit of credprov's own (memory: 8
//     concurrent runs), far above any credential answer (a 6 MiB answer is
//     judged whole). An answer still going at the limit cannot be judged:
//     that is a harness result, never the plugin's failure.
//   - but no more than NOISE_KEPT_BYTES past the point where the verdict can
//     no longer change: non-blank output after a complete top-level JSON
//     object (both callers refuse it), or, for the kubelet, which decodes
//     JSON only, a first non-blank byte that is not '{'. So 32 MiB of debug
//     lines after the answer cost 64 KiB, and are counted.
//   - stderr up to MAX_STDERR_BYTES: it only explains.
// The rest is read (the plugin is never blocked on a full pipe) and counted.

export const MAX_STDOUT_BYTES = 64 * 1024 * 1024;
export const MAX_STDERR_BYTES = 4 * 1024 * 1024;
/** Kept past the point where the verdict is decided: enough to show the noise. */
export const NOISE_KEPT_BYTES = 64 * 1024;

/** Which caller's reading decides when the verdict is settled. */
export type StdoutReader = 'json' | 'json-or-yaml';

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Finds, byte by byte, where the first top-level JSON value of a stream ends
 * and whether anything but blanks follows it: the point past which nothing
 * can change a JSON reader's verdict.
 */
export class SettlePoint {
  private state: 'before' | 'object' | 'after' | 'done' = 'before';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private offset = 0;
  /** The byte offset at which the verdict was settled, once it is. */
  settledAt: number | undefined;

  private readonly reader: StdoutReader;

  constructor(reader: StdoutReader) {
    this.reader = reader;
  }

  feed(chunk: Buffer): void {
    for (let i = 0; i < chunk.length && this.state !== 'done'; i++) {
      const b = chunk[i]!;
      if (this.state === 'before') {
        if (WS.has(b)) continue;
        if (b === 0x7b) {
          this.state = 'object';
          this.depth = 1;
        } else if (this.reader === 'json') this.settle(i);
        // A YAML reader (client-go) may still accept it: nothing settles.
        else this.state = 'done';
      } else if (this.state === 'object') {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (b === 0x5c) this.escaped = true;
          else if (b === 0x22) this.inString = false;
        } else if (b === 0x22) this.inString = true;
        else if (b === 0x7b || b === 0x5b) this.depth++;
        else if ((b === 0x7d || b === 0x5d) && --this.depth === 0) this.state = 'after';
      } else if (!WS.has(b)) this.settle(i);
    }
    this.offset += chunk.length;
  }

  private settle(i: number): void {
    this.settledAt = this.offset + i;
    this.state = 'done';
  }
}

/** Keeps output up to a limit and counts the rest; for stdout, no more than NOISE_KEPT_BYTES past the settle point. */
export class Capture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  size = 0;
  private readonly settle: SettlePoint | undefined;
  private limit: number;

  constructor(limit: number, reader?: StdoutReader) {
    this.limit = limit;
    this.settle = reader ? new SettlePoint(reader) : undefined;
  }

  add(d: Buffer): void {
    this.size += d.length;
    if (this.settle && this.settle.settledAt === undefined) {
      this.settle.feed(d);
      if (this.settle.settledAt !== undefined)
        this.limit = Math.min(this.limit, this.settle.settledAt + NOISE_KEPT_BYTES);
    }
    if (this.kept >= this.limit) return;
    const part = d.length > this.limit - this.kept ? d.subarray(0, this.limit - this.kept) : d;
    this.chunks.push(part);
    this.kept += part.length;
  }

  /** Bytes kept (what text() holds). */
  get keptBytes(): number {
    return this.kept;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
