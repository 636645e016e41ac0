// A tiny logger passed into constructors (kind's pattern): library code is
// silent unless the caller hands it a real logger.
export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  /** A child logger whose lines carry `namespace` (credprov:cluster, credprov:registry …). */
  child(namespace: string): Logger;
}

export const noopLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return noopLogger;
  },
};

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Writes to stderr so stdout stays machine-readable (JSON last lines, `true`/`false`). */
export function stderrLogger(
  level: LogLevel = 'info',
  namespace = 'credprov',
  write = (s: string) => process.stderr.write(s),
): Logger {
  const emit = (l: LogLevel, msg: string) => {
    if (ORDER[l] < ORDER[level]) return;
    const prefix = l === 'info' ? '' : `${l}: `;
    write(`${prefix}${level === 'debug' ? `[${namespace}] ` : ''}${msg}\n`);
  };
  return {
    debug: (m) => emit('debug', m),
    info: (m) => emit('info', m),
    warn: (m) => emit('warn', m),
    error: (m) => emit('error', m),
    child: (ns) => stderrLogger(level, `${namespace}:${ns}`, write),
  };
}

/** Collects lines in memory: for tests, and to attach to a failing check as evidence. */
export function memoryLogger(lines: string[] = []): Logger & { lines: string[] } {
  const push = (l: string) => (m: string) => lines.push(`${l}: ${m}`);
  const self = {
    lines,
    debug: push('debug'),
    info: push('info'),
    warn: push('warn'),
    error: push('error'),
    child: () => self,
  };
  return self;
}
