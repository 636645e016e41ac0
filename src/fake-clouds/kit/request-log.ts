// Every request a fake cloud answered, in order, kept in memory and (when asked)
// appended to a JSONL file as it happens, so a run's artifacts hold the log even
// if the run dies. Records never hold a secret: each fake decides what to keep.
import { appendFileSync } from 'node:fs';

/** What every record holds; a fake adds its own fields. */
export interface CloudRecord {
  seq: number;
  time: string;
  method: string;
  /** The path (and whatever of the query is not a secret). */
  path: string;
  status: number;
  userAgent?: string;
  error?: unknown;
}

export class RequestLog<R extends CloudRecord> {
  private readonly records: R[] = [];
  private readonly file: string | undefined;
  private readonly clock: () => number;

  constructor(o: { file?: string; clock?: () => number } = {}) {
    this.file = o.file;
    this.clock = o.clock ?? Date.now;
  }

  /** Stamps the record with its sequence number and time, keeps it, and appends it to the file. */
  add(r: Omit<R, 'seq' | 'time'>): R {
    const rec = { seq: this.records.length + 1, time: new Date(this.clock()).toISOString(), ...r } as R;
    this.records.push(rec);
    if (this.file) appendFileSync(this.file, `${JSON.stringify(rec)}\n`);
    return rec;
  }

  /** Copies of every record so far, oldest first. */
  all(): R[] {
    return this.records.map((r) => ({ ...r }));
  }
}
