// The Go toolchain as the binaries module uses it: module queries against the
// proxy and builds. Proxy refusals (403 for a zip the proxy will not serve, 404
// or 410 for an unknown version or a missing checksum) become data, so callers
// can fall back to another patch release or say what is available.
import { execa } from 'execa';
import { CommandError, PrerequisiteError } from '../../core/errors.ts';
import { type Logger, noopLogger } from '../../core/logger.ts';

export type ProxyFailure = 'refused' | 'unknown-version' | 'no-checksum' | 'network' | 'other';

export interface ModuleDownload {
  ok: boolean;
  version: string;
  /** Extracted module source (ok only). */
  dir?: string;
  goModFile?: string;
  sum?: string;
  failure?: ProxyFailure;
  /** Go's own error text, first line. */
  error?: string;
}

export interface ModuleInfo {
  version: string;
  /** Commit time of the tag, from the proxy's .info. */
  time?: string;
}

/** What the binaries module needs from Go; tests substitute a fake. */
export interface GoTool {
  version(): Promise<string>;
  /** Versions the proxy lists (may be incomplete: the list endpoint omits versions it has not been asked for). */
  listVersions(module: string): Promise<string[]>;
  /** Metadata of one version, or undefined when the proxy does not know it. */
  info(module: string, version: string): Promise<ModuleInfo | undefined>;
  download(module: string, version: string): Promise<ModuleDownload>;
  /** Runs `go <args>` in `cwd`, output appended to `logFile` when given. */
  run(
    args: string[],
    opts: { cwd: string; env?: Record<string, string>; logFile?: string; signal?: AbortSignal },
  ): Promise<void>;
}

export function classifyProxyError(text: string): ProxyFailure {
  // The proxy answers 403 "not available" both for versions it never saw and for
  // zips it will not serve; only the URL tells them apart.
  if (/sumdb|sum\.golang\.org|checksum database/i.test(text)) return 'no-checksum';
  if (/\.zip: (403|404|410)\b/.test(text)) return 'refused';
  if (/\.(info|mod): (403|404|410)\b|unknown revision|invalid version|no matching versions/i.test(text))
    return 'unknown-version';
  if (/dial tcp|no such host|i\/o timeout|connection refused|TLS handshake timeout|network is unreachable/i.test(text))
    return 'network';
  return 'other';
}

/**
 * Go run outside any module so queries never touch (or need) a go.mod.
 * `nice`: builds (run) at this niceness, for a build in the background of a
 * run whose suites must keep the CPU when they need it. `env`: added to every
 * go command's environment (a plugin's own GOTOOLCHAIN, say).
 */
/**
 * Every credprov build links with -s -w, so the DWARF the compiler writes for each package is thrown away at
 * link time: not writing it takes 6% off a cold build's CPU (kubelet v1.37.1 with an empty GOCACHE: 681 → 642
 * CPU-seconds, docs/benchmarks.md). The code generated is the same.
 */
export const NO_DWARF = '-gcflags=all=-dwarf=false';

export function systemGo(
  opts: { goBinary?: string; log?: Logger; cwd?: string; nice?: number; env?: Record<string, string> } = {},
): GoTool {
  const go = opts.goBinary ?? 'go';
  const log = opts.log ?? noopLogger;
  const queryCwd = opts.cwd ?? '/';
  // opts.env: e.g. GOTOOLCHAIN for a module that needs a newer Go than the machine's.
  const baseEnv = { GOFLAGS: `-mod=mod ${NO_DWARF}`, GO111MODULE: 'on', ...opts.env };

  async function query(args: string[]): Promise<{ ok: boolean; stdout: string; stderr: string }> {
    log.debug(`go ${args.join(' ')}`);
    try {
      const r = await execa(go, args, { cwd: queryCwd, env: baseEnv, reject: false, timeout: 300_000 });
      return { ok: r.exitCode === 0, stdout: String(r.stdout), stderr: String(r.stderr) };
    } catch (err) {
      throw missingGo(go, err);
    }
  }

  return {
    async version() {
      const r = await query(['env', 'GOVERSION']);
      if (!r.ok)
        throw new PrerequisiteError(`'${go} env GOVERSION' failed`, {
          detail: r.stderr,
          hint: 'install Go 1.26 or newer',
        });
      return r.stdout.trim();
    },
    async listVersions(module) {
      const r = await query(['list', '-m', '-versions', '-json', module]);
      if (!r.ok) return [];
      const parsed = JSON.parse(r.stdout) as { Versions?: string[] };
      return parsed.Versions ?? [];
    },
    async info(module, version) {
      const r = await query(['list', '-m', '-json', `${module}@${version}`]);
      if (!r.ok) return undefined;
      const parsed = JSON.parse(r.stdout) as { Version: string; Time?: string };
      return { version: parsed.Version, ...(parsed.Time ? { time: parsed.Time } : {}) };
    },
    async download(module, version) {
      const r = await query(['mod', 'download', '-json', `${module}@${version}`]);
      let parsed: { Dir?: string; GoMod?: string; Sum?: string; Error?: string };
      try {
        parsed = JSON.parse(r.stdout);
      } catch {
        parsed = { Error: r.stderr || r.stdout };
      }
      if (r.ok && !parsed.Error && parsed.Dir) {
        return {
          ok: true,
          version,
          dir: parsed.Dir,
          ...(parsed.GoMod ? { goModFile: parsed.GoMod } : {}),
          ...(parsed.Sum ? { sum: parsed.Sum } : {}),
        };
      }
      const error = (parsed.Error ?? r.stderr).trim();
      return { ok: false, version, failure: classifyProxyError(error), error: error.split('\n')[0]! };
    },
    async run(args, o) {
      log.debug(`(cd ${o.cwd} && go ${args.join(' ')})`);
      let r;
      const [file, argv] = opts.nice ? ['nice', ['-n', String(opts.nice), go, ...args]] : [go, args];
      try {
        r = await execa(file, argv, {
          cwd: o.cwd,
          env: { ...baseEnv, ...o.env },
          all: true,
          reject: false,
          ...(o.signal ? { cancelSignal: o.signal } : {}),
          ...(o.logFile
            ? {
                stdout: ['pipe', { file: o.logFile, append: true }],
                stderr: ['pipe', { file: o.logFile, append: true }],
              }
            : {}),
        });
      } catch (err) {
        throw missingGo(go, err);
      }
      if (r.isCanceled) throw new CommandError(`go ${args[0]} was cancelled`, { argv: [go, ...args] });
      if (r.exitCode !== 0) {
        throw new CommandError(`go ${args.slice(0, 2).join(' ')} failed (exit ${r.exitCode})`, {
          argv: [go, ...args],
          ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }),
          output: String(r.all ?? ''),
          ...(o.logFile ? { hint: `full output in ${o.logFile}` } : {}),
        });
      }
    },
  };
}

function missingGo(go: string, err: unknown): Error {
  const code = (err as { code?: string }).code;
  if (code === 'ENOENT') {
    return new PrerequisiteError(`Go is not installed ('${go}' not found on PATH)`, {
      hint: 'install Go 1.26+ (https://go.dev/dl) or give --dir with prebuilt binaries',
    });
  }
  return err instanceof Error ? err : new Error(String(err));
}
