// The certify kit: how every certify check is judged, for kubelet and exec
// plugins alike. A check names its basis (what a pass would rest on: the
// runs that started, the answers, the declined runs it looks at) and a judge.
// The kit runs the judge, then holds it to the basis: a pass with an empty
// basis is a skip whose reason names what was lacking. A failure stands,
// since it rests on what it found (a process left behind by a run that
// declined is still left behind). So no check can pass on nothing, whatever
// its judge says, and a new check gets this for free.
import { describeEnd } from '../plugin/go-exec.ts';
import type { Invocation } from '../plugin/invocation.ts';
import { runCheck, skip, type Outcome } from '../report/checks.ts';
import type { Check, CheckResult } from '../report/model.ts';

/** What a pass rests on: how many runs (answers, …) there were to judge, and, when none, what was lacking. */
export interface Basis {
  count: number;
  /** One line: what the check had nothing of, and why (e.g. "no run answered: all 14 exited 2 …"). */
  lacking: string;
}

export interface CertifyCheck<O> {
  check: Check;
  basis(o: O): Basis;
  judge(o: O): Outcome | Promise<Outcome>;
}

/** The basis `items`, lacking `why()` when there are none. */
export function basisOf(items: readonly unknown[], why: () => string): Basis {
  return { count: items.length, lacking: items.length > 0 ? '' : why() };
}

/** Judges one check and holds a pass to its basis. */
export function judgeCheck<O>(c: CertifyCheck<O>, o: O, now?: () => Date): Promise<CheckResult> {
  return runCheck(
    c.check,
    async () => {
      const outcome = await c.judge(o);
      if (outcome.status !== 'passed') return outcome;
      const basis = c.basis(o);
      return basis.count > 0 ? outcome : skip(`not judged: ${basis.lacking}`, outcome.evidence ?? []);
    },
    now,
  );
}

export async function judgeChecks<O>(
  checks: readonly CertifyCheck<O>[],
  o: O,
  now?: () => Date,
): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  for (const c of checks) out.push(await judgeCheck(c, o, now));
  return out;
}

/** The run started: execve took the file. */
export const started = (i: Invocation): boolean => !i.spawnError;
/** The run exited 0 in time: the only kind whose stdout a real caller reads. */
export const answered = (i: Invocation): boolean => !i.spawnError && !i.timedOut && i.exitCode === 0 && !i.signal;

/**
 * Why `runs` gave a check nothing to judge, from the runs themselves, e.g.
 * "no run started: all 4 failed to start ("fork/exec …: exec format error": the file is empty (0 bytes)); see KP-EXEC",
 * "no run answered: all 14 exited 2 (stderr: cannot do it); see EP-EXEC".
 */
export function whyNothing(runs: readonly Invocation[], need: 'a run that started' | 'an answer', see: string): string {
  if (runs.length === 0) return `no run was made (see ${see})`;
  const refused = runs.filter((i) => i.spawnError);
  if (refused.length === runs.length) {
    const first = refused[0]!;
    const why = first.spawnErrorWhy ? `: ${first.spawnErrorWhy}` : '';
    return `no run started: all ${runs.length} failed to start ("${first.spawnError!.split('\n')[0]}"${why}); see ${see}`;
  }
  if (need === 'a run that started') return `no run started; see ${see}`;
  const ends = new Map<string, number>();
  for (const i of runs) {
    const end = i.spawnError ? 'failed to start' : i.timedOut ? 'timed out' : describeEnd(i);
    ends.set(end, (ends.get(end) ?? 0) + 1);
  }
  const said = runs
    .find((i) => !i.spawnError && !i.timedOut && i.stderr.trim())
    ?.stderr.trim()
    .split('\n')
    .pop();
  const how = [...ends].map(([end, n]) => (ends.size === 1 ? `all ${n} ${end}` : `${n} ${end}`)).join(', ');
  return `no run answered: ${how}${said ? ` (stderr: ${clip(said, 120)})` : ''}; see ${see}`;
}

/** Why execve refused the plugin, for a message: "the file is empty (0 bytes)", or "a script needs a #! line …". */
export function formatRefusalHint(inv: Invocation, caller: 'the kubelet' | 'client-go'): string {
  if (!/: exec format error$/m.test(inv.spawnError ?? '')) return '';
  const execve = `${caller} starts plugins with execve, which has no /bin/sh fallback`;
  if (inv.spawnErrorWhy === 'the file is empty (0 bytes)')
    return `the plugin file is empty (0 bytes): there is nothing to run (${execve})`;
  return `${inv.spawnErrorWhy ? `${inv.spawnErrorWhy}; ` : ''}a script needs a #! line: ${execve}`;
}

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n)}…`);
