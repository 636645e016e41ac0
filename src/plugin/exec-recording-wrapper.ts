// A recording wrapper in front of an unmodified client-go exec plugin: the
// kubeconfig's exec.command is this POSIX sh script. It runs the real binary
// with the same args, env and stdin, keeps its stdout (the ExecCredential),
// stderr and exit status, then replays them. Only its argv[0] differs.
//
// One directory per invocation: <logDir>/<start ns>-<pid>/{argv,exec-info,start,stdout,stderr,end,exit},
// mode 0700 (stdout holds a live credential until the lab removes the dir).
// `exit` is written last. Readers reduce stdout to what the credential says,
// never the credential itself.
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { shellQuote as q, writeScript } from '../core/shell-script.ts';

/** Writes the wrapper at `path` (atomically); returns it. */
export async function installExecRecordingWrapper(o: {
  path: string;
  target: string;
  logDir: string;
}): Promise<string> {
  await mkdir(o.logDir, { recursive: true, mode: 0o700 });
  const script = `#!/bin/sh
# credprov exec recording wrapper: records each run of the plugin below, unmodified.
real=${q(o.target)}
umask 077
d=${q(o.logDir)}/$(date +%s%N)-$$
mkdir -p "$d" || exec "$real" "$@"
printf '%s\\n' "$@" > "$d/argv"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$d/exec-info"
date +%s%N > "$d/start"
"$real" "$@" > "$d/stdout" 2> "$d/stderr"
rc=$?
date +%s%N > "$d/end"
cat "$d/stdout"
cat "$d/stderr" >&2
echo "$rc" > "$d/exit"
exit "$rc"
`;
  return writeScript(o.path, script);
}

/** One recorded run; `stdout` is the raw answer, for the caller to reduce (it is a credential). */
export interface RecordedExecRun {
  id: string;
  startMs: number;
  durationMs?: number;
  exitCode?: number;
  args: string[];
  /** KUBERNETES_EXEC_INFO as the client sent it (no secret in it). */
  execInfo?: unknown;
  stdout: string;
  /** The plugin's stderr, first 2000 characters. */
  stderr: string;
}

/** Every run recorded so far, oldest first. */
export async function readExecRuns(logDir: string): Promise<RecordedExecRun[]> {
  const names = (await readdir(logDir).catch(() => [] as string[])).sort();
  const read = (id: string, f: string) => readFile(join(logDir, id, f), 'utf8').catch(() => undefined);
  const runs: RecordedExecRun[] = [];
  for (const id of names) {
    const [argv, info, start, end, exit, stdout, stderr] = await Promise.all(
      ['argv', 'exec-info', 'start', 'end', 'exit', 'stdout', 'stderr'].map((f) => read(id, f)),
    );
    const startMs = Number(start?.trim() ?? '0') / 1e6;
    let execInfo: unknown;
    try {
      execInfo = info ? JSON.parse(info) : undefined;
    } catch {
      execInfo = info;
    }
    runs.push({
      id,
      startMs,
      args: argv ? argv.replace(/\n$/, '').split('\n') : [],
      ...(end ? { durationMs: Math.round(Number(end.trim()) / 1e6 - startMs) } : {}),
      ...(exit ? { exitCode: Number(exit.trim()) } : {}),
      ...(execInfo !== undefined ? { execInfo } : {}),
      stdout: stdout ?? '',
      stderr: (stderr ?? '').slice(0, 2000),
    });
  }
  return runs;
}

/** What a recorded run answered, as far as it parses (an ExecCredential's fields; the token is a credential). */
export interface PluginAnswer {
  apiVersion?: string;
  kind?: string;
  expirationTimestamp?: string;
  token?: string;
}

export function answerOf(r: RecordedExecRun): PluginAnswer {
  try {
    const j = JSON.parse(r.stdout) as {
      apiVersion?: string;
      kind?: string;
      status?: { expirationTimestamp?: string; token?: string };
    };
    return {
      ...(j.apiVersion ? { apiVersion: j.apiVersion } : {}),
      ...(j.kind ? { kind: j.kind } : {}),
      ...(j.status?.expirationTimestamp ? { expirationTimestamp: j.status.expirationTimestamp } : {}),
      ...(j.status?.token ? { token: j.status.token } : {}),
    };
  } catch {
    return {};
  }
}

export const tokenOf = (r: RecordedExecRun): string => answerOf(r).token ?? '';

/**
 * A run as evidence: its args (`shownArgs` when some are secret), exit, time, the KUBERNETES_EXEC_INFO
 * version, and the answer with its token reduced by `describe` to what it says, never the token itself.
 */
export function execRunEvidence(
  r: RecordedExecRun,
  describe: (token: string) => unknown,
  shownArgs: string[] = r.args,
): Record<string, unknown> {
  const answer = answerOf(r);
  return {
    args: shownArgs,
    exitCode: r.exitCode,
    durationMs: r.durationMs,
    execInfoApiVersion: (r.execInfo as { apiVersion?: string } | undefined)?.apiVersion,
    answer: {
      apiVersion: answer.apiVersion,
      kind: answer.kind,
      expirationTimestamp: answer.expirationTimestamp,
      tokenContents: describe(answer.token ?? ''),
    },
    ...(r.exitCode ? { stderr: r.stderr.slice(-600) } : {}),
  };
}
