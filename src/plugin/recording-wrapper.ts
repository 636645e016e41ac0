// A recording wrapper in front of an unmodified plugin: the kubelet execs
// <bin-dir>/<provider name>, which is this POSIX sh script; it copies the
// request (stdin) to a log directory while feeding it to the real binary,
// keeps the binary's stdout, stderr and exit status, then replays stdout and
// stderr and exits with the same status. The plugin sees the same stdin, args
// and environment; only its argv[0] is the real path.
//
// One directory per invocation: <logDir>/<start ns>-<pid>/{argv,env,start,request,stdout,stderr,end,exit}.
// `exit` is written last, so an invocation without it is still running (or was killed).
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { shellQuote as q, writeScript } from '../core/shell-script.ts';
import { basename, join } from 'node:path';
import { createHash } from 'node:crypto';
import { claimsOf, type TokenClaims } from '../core/token-claims.ts';

export interface RecordingWrapperInstall {
  binDir: string;
  /** The provider entry's name: the file the kubelet execs. */
  name: string;
  /** The real plugin executable. */
  target: string;
  logDir: string;
}

/** Writes <binDir>/<name> (atomically); returns its path. */
export async function installRecordingWrapper(o: RecordingWrapperInstall): Promise<string> {
  await mkdir(o.binDir, { recursive: true });
  await mkdir(o.logDir, { recursive: true });
  const path = join(o.binDir, o.name);
  const script = `#!/bin/sh
# credprov recording wrapper (installed by credprov): records the request, the
# answer and the exit status of ${basename(o.target)}, which it runs unmodified.
real=${q(o.target)}
d=${q(o.logDir)}/$(date +%s%N)-$$
mkdir -p "$d" || exec "$real" "$@"
printf '%s\\n' "$0" "$@" > "$d/argv"
# Names of the AWS_/CREDPROV_ variables the plugin gets, with their value's length (never the value).
env | awk -F= '/^(AWS|CREDPROV)_[A-Z0-9_]*=/ { print $1 "=" length(substr($0, length($1) + 2)) }' | sort > "$d/env"
date +%s%N > "$d/start"
tee "$d/request" | "$real" "$@" > "$d/stdout" 2> "$d/stderr"
rc=$?
date +%s%N > "$d/end"
cat "$d/stdout"
cat "$d/stderr" >&2
echo "$rc" > "$d/exit"
exit "$rc"
`;
  return writeScript(path, script);
}

/** One recorded invocation, secrets reduced to hashes and claims. */
export interface WrappedInvocation {
  id: string;
  /** The provider it ran as: the basename of the path the kubelet exec'd. */
  provider: string;
  startedAt: string;
  startMs: number;
  endMs?: number;
  durationMs?: number;
  /** undefined: still running, or killed before it finished. */
  exitCode?: number;
  args: string[];
  /** Name of each AWS_ or CREDPROV_ variable → its value's length. */
  env: Record<string, number>;
  request: {
    apiVersion?: string;
    kind?: string;
    image?: string;
    tokenPresent: boolean;
    tokenSha256?: string;
    tokenClaims?: TokenClaims;
    annotations?: Record<string, string>;
    raw?: string;
  };
  response?: {
    apiVersion?: string;
    kind?: string;
    cacheKeyType?: string;
    cacheDuration?: string;
    /** auth key → username (passwords are not kept). */
    auth?: Record<string, string>;
    /** auth key → sha256 prefix of the password, to tell tokens apart. */
    passwordSha256?: Record<string, string>;
    raw?: string;
  };
  stderr: string;
}

/** The recorded execs as a report shows them: what was asked and answered, stderr only for a failure. */
export function invocationEvidence(logDir: string, execs: WrappedInvocation[], label = '') {
  return {
    kind: 'invocation' as const,
    label: `plugin execs (recording wrapper, ${logDir})${label}`,
    data: execs.map((i) => ({
      provider: i.provider,
      image: i.request.image,
      startedAt: i.startedAt,
      durationMs: i.durationMs,
      exitCode: i.exitCode,
      tokenClaims: i.request.tokenClaims,
      annotations: i.request.annotations,
      answer: i.response,
      stderr: i.exitCode ? i.stderr.slice(-600) : undefined,
    })),
  };
}

const nsToMs = (text: string) => Number(BigInt(text.trim() || '0') / 1_000_000n);

export async function readWrappedInvocations(logDir: string): Promise<WrappedInvocation[]> {
  let names: string[];
  try {
    names = await readdir(logDir);
  } catch {
    return [];
  }
  const out: WrappedInvocation[] = [];
  for (const id of names.filter((n) => /^\d+-\d+$/.test(n))) {
    const dir = join(logDir, id);
    const read = (f: string) => readFile(join(dir, f), 'utf8').catch(() => undefined);
    const [argv, env, start, request, stdout, stderr, end, exit] = await Promise.all(
      ['argv', 'env', 'start', 'request', 'stdout', 'stderr', 'end', 'exit'].map(read),
    );
    if (start === undefined) continue;
    const argvLines = (argv ?? '').split('\n').slice(0, -1);
    const startMs = nsToMs(start);
    const endMs = end ? nsToMs(end) : undefined;
    out.push({
      id,
      provider: basename(argvLines[0] ?? ''),
      startedAt: new Date(startMs).toISOString(),
      startMs,
      ...(endMs !== undefined ? { endMs, durationMs: endMs - startMs } : {}),
      ...(exit !== undefined && exit.trim() !== '' ? { exitCode: Number(exit.trim()) } : {}),
      args: argvLines.slice(1),
      env: Object.fromEntries(
        (env ?? '')
          .split('\n')
          .filter(Boolean)
          .map((l) => {
            const i = l.lastIndexOf('=');
            return [l.slice(0, i), Number(l.slice(i + 1))];
          }),
      ),
      request: parseRequest(request ?? ''),
      ...(stdout !== undefined && exit !== undefined ? { response: parseResponse(stdout) } : {}),
      stderr: (stderr ?? '').slice(-2000),
    });
  }
  return out.sort((a, b) => a.startMs - b.startMs || a.id.localeCompare(b.id));
}

function parseRequest(text: string): WrappedInvocation['request'] {
  try {
    const r = JSON.parse(text) as {
      apiVersion?: string;
      kind?: string;
      image?: string;
      serviceAccountToken?: string;
      serviceAccountAnnotations?: Record<string, string>;
    };
    const token = r.serviceAccountToken;
    const claims = token ? claimsOf(token) : undefined;
    return {
      ...(r.apiVersion ? { apiVersion: r.apiVersion } : {}),
      ...(r.kind ? { kind: r.kind } : {}),
      ...(r.image ? { image: r.image } : {}),
      tokenPresent: !!token,
      ...(token ? { tokenSha256: sha(token) } : {}),
      ...(claims ? { tokenClaims: claims } : {}),
      ...(r.serviceAccountAnnotations ? { annotations: r.serviceAccountAnnotations } : {}),
    };
  } catch {
    return { tokenPresent: false, raw: text.slice(0, 200) };
  }
}

function parseResponse(text: string): NonNullable<WrappedInvocation['response']> {
  if (text.trim() === '') return {};
  try {
    const r = JSON.parse(text) as {
      apiVersion?: string;
      kind?: string;
      cacheKeyType?: string;
      cacheDuration?: string;
      auth?: Record<string, { username?: string; password?: string }>;
    };
    const auth = r.auth ?? {};
    return {
      ...(r.apiVersion ? { apiVersion: r.apiVersion } : {}),
      ...(r.kind ? { kind: r.kind } : {}),
      ...(r.cacheKeyType !== undefined ? { cacheKeyType: r.cacheKeyType } : {}),
      ...(r.cacheDuration !== undefined ? { cacheDuration: r.cacheDuration } : {}),
      auth: Object.fromEntries(Object.entries(auth).map(([k, v]) => [k, v?.username ?? ''])),
      passwordSha256: Object.fromEntries(Object.entries(auth).map(([k, v]) => [k, sha(v?.password ?? '')])),
    };
  } catch {
    return { raw: '(not JSON)' };
  }
}

function sha(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 12);
}

/**
 * Rewrites the recorded request and stdout files with `redact` applied (they
 * hold the SA token and the passwords in clear for the replay); call when the
 * run is over, before the artifacts are kept.
 */
export async function redactWrapperLog(logDir: string, redact: (text: string) => string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(logDir);
  } catch {
    return;
  }
  for (const id of names) {
    for (const f of ['request', 'stdout', 'stderr']) {
      const p = join(logDir, id, f);
      const text = await readFile(p, 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      // The SA token is a JWT: never keep one, whether or not the redactor knows it.
      await writeFile(p, redact(text).replace(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, '<redacted: JWT>'));
    }
  }
}
