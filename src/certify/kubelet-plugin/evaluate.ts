// Judges what the plugin did. Each function turns the observations of a run
// into one check's Outcome: a one-line message a vendor can act on, plus the
// invocations that show it.
import type { CredentialProvider } from '../../api/credentialprovider/types.ts';
import { authKeyMatches } from '../../matching/url.ts';
import { describeEnd, goProcessState } from '../../plugin/go-exec.ts';
import { cutNote, OUTPUT_LIMITS, size, type Invocation } from '../../plugin/invocation.ts';
import { fail, harnessFail, pass, skip, type Outcome } from '../../report/checks.ts';
import type { KubeBehaviour } from '../../versions/table.ts';
import { answered as ranToAnswer, basisOf, started, whyNothing, type Basis, type CertifyCheck } from '../kit.ts';
import type { Aspect, ResponseAnalysis } from './analyse.ts';
import * as C from './checks.ts';
import { ending, invocationEvidence, requestedImage, seconds } from './evidence.ts';
import type { MintedServiceAccount } from './service-account.ts';

export interface Probe {
  image: string;
  invocation: Invocation;
  /** Present when the plugin exited 0 in time (only then does the kubelet read stdout). */
  analysis?: ResponseAnalysis;
}

export interface Observations {
  provider: CredentialProvider;
  timeoutMs: number;
  behaviour: KubeBehaviour;
  /** One invocation per probe image. */
  probes: Probe[];
  /** An image outside matchImages, and a request that is not JSON. */
  unservable?: Probe;
  malformed?: Probe;
  concurrent?: Probe[];
  concurrencySkipped?: string;
  serviceAccount?: MintedServiceAccount;
}

const MAX_EVIDENCE = 3;

function answered(obs: Observations): Probe[] {
  return obs.probes.filter((p) => p.analysis);
}

function noAnswer(obs: Observations): string {
  if (obs.probes.length === 0) return 'no image was probed';
  const runs = obs.probes.map((p) => p.invocation);
  return whyNothing(runs, 'an answer', runs.every((i) => i.timedOut) ? 'KP-TIMEOUT' : 'KP-EXEC');
}

export function evaluateExec(obs: Observations): Outcome {
  const done = obs.probes.filter((p) => !p.invocation.timedOut);
  if (done.length === 0) return skip(noAnswer(obs));
  const bad = done.filter((p) => !p.analysis);
  if (bad.length > 0) {
    const first = bad[0]!;
    return fail(
      `for image ${first.image} the plugin ${ending(first.invocation, obs.timeoutMs)}${bad.length > 1 ? ` (and ${bad.length - 1} more image(s))` : ''}; the kubelet would pull without its credentials`,
      bad.slice(0, MAX_EVIDENCE).map((p) => invocationEvidence(p.invocation)),
    );
  }
  return pass(`exited 0 for ${done.length} image(s): ${done.map((p) => p.image).join(', ')}`);
}

const CONSEQUENCE: Record<Aspect, string> = {
  stdout: 'the kubelet cannot decode it and pulls without these credentials',
  apiVersion:
    'the kubelet refuses the response ("apiVersion from credential plugin response did not match expected apiVersion")',
  kind: 'the kubelet cannot decode the response',
  strict: 'a 1.32+ kubelet refuses the response',
  cacheKeyType: 'the kubelet uses no credentials from it ("did not return a valid cacheKeyType")',
  cacheDuration: 'the kubelet cannot decode the response',
};

const PASSED: Record<Aspect, (probes: Probe[], obs: Observations) => string> = {
  stdout: () => 'stdout was one JSON object each time',
  apiVersion: (_, obs) => `all in ${obs.provider.apiVersion}`,
  kind: () => 'all kind CredentialProviderResponse',
  strict: () => 'no unknown or duplicate fields',
  cacheKeyType: (ps) =>
    `cacheKeyType ${[...new Set(ps.map((p) => String(p.analysis!.object?.cacheKeyType)))].join(', ')}`,
  cacheDuration: (ps) =>
    `cacheDuration ${[...new Set(ps.map((p) => String(p.analysis!.object?.cacheDuration ?? 'unset (the provider default applies)')))].join(', ')}`,
};

export function evaluateAspect(obs: Observations, aspect: Aspect): Outcome {
  const probes = answered(obs);
  if (probes.length === 0) return skip(noAnswer(obs));
  const failing = probes.filter((p) => p.analysis!.verdicts[aspect].ok === false);
  if (failing.length > 0) {
    const v = failing[0]!.analysis!.verdicts[aspect] as { problem: string };
    if (failing[0]!.analysis!.cut) {
      // credprov's own limit, not the plugin's fault: the kubelet reads all of stdout.
      return harnessFail(
        `for image ${failing[0]!.image}: ${v.problem}: credprov keeps at most ${size(OUTPUT_LIMITS.stdout)} of stdout, so it cannot judge this answer, which the kubelet reads whole (see KP-RESPONSE-SIZE)`,
        failing.slice(0, MAX_EVIDENCE).map((p) => invocationEvidence(p.invocation)),
      );
    }
    const cut = aspect === 'stdout' ? cutNote(failing[0]!.invocation) : '';
    return fail(
      `for image ${failing[0]!.image}: ${v.problem}${cut}; ${CONSEQUENCE[aspect]}`,
      failing.slice(0, MAX_EVIDENCE).map((p) => invocationEvidence(p.invocation)),
    );
  }
  const unknown = probes.filter((p) => p.analysis!.verdicts[aspect].ok === 'unknown');
  if (unknown.length === probes.length)
    return skip(`not judged: ${(unknown[0]!.analysis!.verdicts[aspect] as { why: string }).why}`);
  const judged = probes.filter((p) => p.analysis!.verdicts[aspect].ok === true);
  return pass(`${judged.length} response(s): ${PASSED[aspect](judged, obs)}`);
}

/** An answer the kubelet has to read, parse and re-match on every pull should stay small. */
export const RESPONSE_SIZE_LIMIT = 1024 * 1024;

/** The bytes of the answer itself: all of stdout when it is one object (even one credprov could not keep whole). */
function answerBytes(p: Probe): number | undefined {
  const a = p.analysis;
  if (!a) return undefined;
  if (a.cut) return p.invocation.outputBytes?.stdout;
  return a.verdicts.stdout.ok === true ? Buffer.byteLength(p.invocation.stdout) : undefined;
}

export function evaluateResponseSize(obs: Observations): Outcome {
  const sized = obs.probes.filter((p) => answerBytes(p) !== undefined);
  if (sized.length === 0) return skip(noAnswer(obs));
  const big = sized.filter((p) => answerBytes(p)! > RESPONSE_SIZE_LIMIT);
  if (big.length > 0) {
    const p = big[0]!;
    const auth = p.analysis!.object?.auth;
    const entries = auth && typeof auth === 'object' ? Object.keys(auth).length : undefined;
    return fail(
      `for image ${p.image} the answer is ${size(answerBytes(p)!)}${entries !== undefined ? ` with ${entries} auth entries` : ''}: the kubelet reads it whole and caches it, and on every pull of a matching image parses, sorts and matches every auth key again; answer with the entries the requested image needs (its registry), under ${size(RESPONSE_SIZE_LIMIT)}`,
      big.slice(0, MAX_EVIDENCE).map((x) => invocationEvidence(x.invocation)),
    );
  }
  const largest = Math.max(...sized.map((p) => answerBytes(p)!));
  return pass(`${sized.length} answer(s), the largest ${size(largest)}`);
}

export function evaluateAuthMatches(obs: Observations): Outcome {
  const probes = answered(obs).filter((p) => p.analysis!.object);
  if (probes.length === 0)
    return skip(
      answered(obs).length === 0
        ? noAnswer(obs)
        : 'not judged: no response object to inspect (see KP-STDOUT-ONLY-JSON)',
    );
  for (const p of probes) {
    const auth = p.analysis!.object!.auth;
    const keys = auth && typeof auth === 'object' && !Array.isArray(auth) ? Object.keys(auth) : [];
    if (keys.length === 0) {
      return fail(
        `for image ${p.image} the response has no auth entries, so the kubelet pulls without credentials; return an entry keyed by a pattern that matches the image (e.g. its registry host)`,
        [invocationEvidence(p.invocation)],
      );
    }
    const verdicts = keys.map((k) => ({ key: k, ...authKeyMatches(k, p.image) }));
    if (!verdicts.some((v) => v.match)) {
      const shown = verdicts
        .slice(0, 3)
        .map((v) => `${JSON.stringify(v.key)} (${v.reason})`)
        .join('; ');
      return fail(
        `for image ${p.image} no auth key matches: ${shown}${verdicts.length > 3 ? ` and ${verdicts.length - 3} more` : ''}; the kubelet silently uses none of these credentials`,
        [invocationEvidence(p.invocation)],
      );
    }
  }
  return pass(`every response has an auth key matching its image (${probes.map((p) => p.image).join(', ')})`);
}

export function evaluateFailureExplained(obs: Observations): Outcome {
  const problems: string[] = [];
  const evidence = [];
  const seen: string[] = [];
  for (const p of provocations(obs)) {
    const inv = p.invocation;
    const what =
      p === obs.malformed ? 'a request that is not JSON' : `image ${p.image}, which none of its matchImages covers`;
    if (inv.exitCode !== 0 || inv.signal) {
      if (inv.stderr.trim() === '') {
        problems.push(
          `for ${what}, it ${describeEnd(inv)} with nothing on stderr, so the kubelet log says only "${goProcessState(inv)}"`,
        );
        evidence.push(invocationEvidence(inv));
      } else seen.push(`for ${what}, it ${ending(inv, obs.timeoutMs)}`);
    } else if (p === obs.malformed) {
      problems.push(
        `for ${what}, it exited 0${inv.stdout.trim() === '' ? ' with empty stdout' : ''}, so the kubelet reports a decode error instead of the cause`,
      );
      evidence.push(invocationEvidence(inv));
    } else if (!p.analysis?.accepted) {
      problems.push(
        `for ${what}, it exited 0 without a valid response${inv.stdout.trim() === '' ? ' (empty stdout)' : ''}, so the kubelet reports a decode error instead of the cause; exit non-zero with a reason on stderr, or decline with a valid response with no auth`,
      );
      evidence.push(invocationEvidence(inv));
    } else {
      // A valid answer for an image outside matchImages: the kubelet never asks (matchImages filters first), and
      // credprov cannot tell which images a plugin can serve, so this is an answer, not a failure to explain.
      const keys = Object.keys((p.analysis.object?.auth as Record<string, unknown> | undefined) ?? {});
      seen.push(
        `for ${what}, it answered a valid response with ${
          keys.length === 0
            ? 'no auth entries (a clean decline)'
            : `${keys.length} auth entr${keys.length === 1 ? 'y' : 'ies'} (${keys
                .slice(0, 3)
                .map((k) => JSON.stringify(k))
                .join(', ')}${keys.length > 3 ? ', …' : ''}): the kubelet never asks for such an image`
        }`,
      );
    }
  }
  if (problems.length > 0) return fail(problems.join('; '), evidence);
  return pass(seen.join('; '));
}

/** The provocations that started and ended in time (timeouts are KP-TIMEOUT's, start failures KP-EXEC's). */
function provocations(obs: Observations): Probe[] {
  return [obs.unservable, obs.malformed].filter(
    (p): p is Probe => p !== undefined && !p.invocation.timedOut && !p.invocation.spawnError,
  );
}

export function evaluateTimeout(obs: Observations): Outcome {
  const all = allInvocations(obs);
  const late = all.filter((i) => i.timedOut);
  if (late.length > 0) {
    return fail(
      `for image ${requestedImage(late[0]!)} the plugin did not answer within ${seconds(obs.timeoutMs)} and was killed (${late.length} of ${all.length} invocations); the kubelet gives up after 1m and pulls without credentials`,
      late.slice(0, MAX_EVIDENCE).map((i) => invocationEvidence(i)),
    );
  }
  const answers = all.filter(ranToAnswer);
  if (answers.length === 0) return skip(whyNothing(all, 'an answer', 'KP-EXEC'));
  const slowest = Math.max(...answers.map((i) => i.durationMs));
  return pass(
    `all ${answers.length} answers came within the ${seconds(obs.timeoutMs)} allowed, the slowest in ${Math.round(slowest)}ms${others(all, answers)}`,
  );
}

/** " (2 more of the 14 invocations exited 1)": the runs a message about answers does not count, so totals agree. */
function others(all: Invocation[], counted: Invocation[]): string {
  const rest = all.filter((i) => !counted.includes(i));
  if (rest.length === 0) return '';
  const ends = [
    ...new Set(rest.map((i) => (i.spawnError ? 'failed to start' : i.timedOut ? 'timed out' : describeEnd(i)))),
  ];
  return ` (${rest.length} more of the ${all.length} invocations ${ends.join(' or ')})`;
}

export function evaluateNoStdoutHolder(obs: Observations): Outcome {
  const all = allInvocations(obs);
  const held = all.filter((i) => i.strays?.some((s) => s.holds.length > 0));
  if (held.length > 0) {
    const first = held[0]!;
    const s = first.strays!.find((x) => x.holds.length > 0)!;
    return fail(
      `for image ${requestedImage(first)} the plugin exited but left pid ${s.pid} (${clipped(s.cmdline)}) holding its ${s.holds.join(' and ')} (${held.length} of ${all.length} invocations); the kubelet (v1.37.1, observed) reads both to their end, so that pull waits until the process exits, however long, and if that is past its 1m timeout it then drops the answer (context deadline exceeded) and pulls without credentials: start helpers with their output redirected, or wait for them`,
      held.slice(0, MAX_EVIDENCE).map((i) => invocationEvidence(i)),
    );
  }
  const ran = all.filter(started);
  if (ran.length === 0) return skip(whyNothing(all, 'a run that started', 'KP-EXEC'));
  return pass(
    `stdout and stderr closed when the plugin exited, in all ${ran.length} invocations that started${others(all, ran)}`,
  );
}

export function evaluateNoLeftovers(obs: Observations): Outcome {
  const all = allInvocations(obs);
  // Holders are KP-NO-STDOUT-HOLDER's: one defect, one verdict.
  const left = all.filter((i) => i.strays?.some((s) => s.holds.length === 0));
  if (left.length > 0) {
    const first = left[0]!;
    const s = first.strays!.find((x) => x.holds.length === 0)!;
    return fail(
      `for image ${requestedImage(first)} the plugin left pid ${s.pid} (${clipped(s.cmdline)}) running after it exited (${left.length} of ${all.length} invocations); the kubelet never stops it, so one more process stays on the node per pull`,
      left.slice(0, MAX_EVIDENCE).map((i) => invocationEvidence(i)),
    );
  }
  const ran = all.filter(started);
  if (ran.length === 0) return skip(whyNothing(all, 'a run that started', 'KP-EXEC'));
  return pass(`no process left running after any of the ${ran.length} invocations that started${others(all, ran)}`);
}

function clipped(cmdline: string): string {
  return cmdline.length > 120 ? `${cmdline.slice(0, 120)}…` : cmdline;
}

export function evaluateConcurrency(obs: Observations): Outcome {
  if (!obs.concurrent) return skip(obs.concurrencySkipped ?? 'not run');
  const bad = obs.concurrent.filter((p) => !p.analysis);
  if (bad.length > 0) {
    return fail(
      `${bad.length} of ${obs.concurrent.length} concurrent invocations failed; first, for image ${bad[0]!.image}, the plugin ${ending(bad[0]!.invocation, obs.timeoutMs)}`,
      bad.slice(0, MAX_EVIDENCE).map((p) => invocationEvidence(p.invocation)),
    );
  }
  const reference = new Map(answered(obs).map((p) => [p.image, shape(p)]));
  for (const p of obs.concurrent) {
    const want = reference.get(p.image);
    const got = shape(p);
    if (want !== undefined && want !== got) {
      const first = obs.probes.find((x) => x.image === p.image)!;
      return fail(`run concurrently, the plugin answered image ${p.image} with ${got}, but run alone with ${want}`, [
        invocationEvidence(p.invocation),
        invocationEvidence(first.invocation),
      ]);
    }
  }
  return pass(`${obs.concurrent.length} concurrent invocations all exited 0 with the same answers as sequential ones`);
}

/** What must not change between runs: decode verdict, cacheKeyType, auth keys and usernames (passwords may rotate). */
function shape(p: Probe): string {
  const a = p.analysis;
  if (!a) return 'no response';
  const o = a.object ?? {};
  const auth = o.auth && typeof o.auth === 'object' ? (o.auth as Record<string, { username?: unknown }>) : {};
  const entries = Object.keys(auth)
    .sort()
    .map((k) => `${k}=${String(auth[k]?.username ?? '')}`);
  return `${a.accepted ? 'accepted' : 'refused'} cacheKeyType=${String(o.cacheKeyType ?? '')} auth={${entries.join(',')}}`;
}

export function evaluateTokenNotEchoed(obs: Observations): Outcome {
  const attrs = obs.provider.tokenAttributes;
  const sa = obs.serviceAccount;
  if (!attrs || !sa)
    return skip(`provider ${obs.provider.name} has no tokenAttributes, so the kubelet sends no service account token`);
  if (attrs.cacheType === 'Token')
    return skip('tokenAttributes.cacheType is Token: returning the token as the password is allowed');
  if (!obs.behaviour.rejectsTokenAsPassword)
    return skip(`Kubernetes 1.${obs.behaviour.minor} does not reject the token as password (1.34+ does)`);
  const responses = [...obs.probes, ...(obs.concurrent ?? [])].filter((p) => p.analysis?.object);
  if (responses.length === 0) return skip(noAnswer(obs));
  for (const p of responses) {
    const auth = p.analysis!.object!.auth;
    if (!auth || typeof auth !== 'object') continue;
    for (const [key, entry] of Object.entries(auth as Record<string, { password?: unknown }>)) {
      if (entry?.password === sa.token) {
        return fail(
          `for image ${p.image} auth[${JSON.stringify(key)}].password is the service account token, but cacheType is ${attrs.cacheType ?? 'unset'}; a 1.34+ kubelet discards the response and uses no credentials (set cacheType: Token for pass-through plugins, or exchange the token)`,
          [invocationEvidence(p.invocation)],
        );
      }
    }
  }
  return pass(`no password in ${responses.length} response(s) equals the service account token`);
}

export function allInvocations(obs: Observations): Invocation[] {
  return [
    ...obs.probes,
    ...(obs.unservable ? [obs.unservable] : []),
    ...(obs.malformed ? [obs.malformed] : []),
    ...(obs.concurrent ?? []),
  ].map((p) => p.invocation);
}

/** The durations latency is computed on: runs that ended by themselves (a timeout or a refused start says nothing of speed). */
export function durationsOf(invocations: Invocation[]): number[] {
  return invocations.filter((i) => !i.timedOut && !i.spawnError).map((i) => i.durationMs);
}

const provoked = (obs: Observations): Invocation[] =>
  [obs.unservable, obs.malformed].filter((p): p is Probe => p !== undefined).map((p) => p.invocation);

/** What a pass of each check rests on (the kit skips a pass that rests on nothing). */
const BASIS = {
  probes: (obs: Observations): Basis => basisOf(obs.probes, () => 'no image was probed'),
  answers: (obs: Observations): Basis =>
    basisOf(answered(obs), () =>
      whyNothing(
        obs.probes.map((p) => p.invocation),
        'an answer',
        'KP-EXEC',
      ),
    ),
  provocations: (obs: Observations): Basis =>
    basisOf(provocations(obs), () => whyNothing(provoked(obs), 'an answer', 'KP-EXEC, KP-TIMEOUT')),
  allAnswers: (obs: Observations): Basis =>
    basisOf(allInvocations(obs).filter(ranToAnswer), () => whyNothing(allInvocations(obs), 'an answer', 'KP-EXEC')),
  started: (obs: Observations): Basis =>
    basisOf(allInvocations(obs).filter(started), () =>
      whyNothing(allInvocations(obs), 'a run that started', 'KP-EXEC'),
    ),
  concurrent: (obs: Observations): Basis =>
    basisOf(obs.concurrent ?? [], () => obs.concurrencySkipped ?? 'the concurrent runs were not made'),
  responses: (obs: Observations): Basis =>
    basisOf(
      [...obs.probes, ...(obs.concurrent ?? [])].filter((p) => p.analysis?.object),
      () => noAnswer(obs),
    ),
};

const aspect = (check: CertifyCheck<Observations>['check'], a: Aspect): CertifyCheck<Observations> => ({
  check,
  basis: BASIS.answers,
  judge: (obs) => evaluateAspect(obs, a),
});

/** Every check of KUBELET_PLUGIN_CHECKS, in report order, with its basis. */
export const KUBELET_PLUGIN_JUDGES: CertifyCheck<Observations>[] = [
  { check: C.KP_EXEC, basis: BASIS.probes, judge: evaluateExec },
  aspect(C.KP_STDOUT, 'stdout'),
  { check: C.KP_RESPONSE_SIZE, basis: BASIS.answers, judge: evaluateResponseSize },
  aspect(C.KP_APIVERSION, 'apiVersion'),
  aspect(C.KP_KIND, 'kind'),
  aspect(C.KP_STRICT, 'strict'),
  aspect(C.KP_CACHE_KEY_TYPE, 'cacheKeyType'),
  aspect(C.KP_CACHE_DURATION, 'cacheDuration'),
  { check: C.KP_AUTH_MATCHES, basis: BASIS.answers, judge: evaluateAuthMatches },
  { check: C.KP_FAILURE_EXPLAINED, basis: BASIS.provocations, judge: evaluateFailureExplained },
  { check: C.KP_TIMEOUT, basis: BASIS.allAnswers, judge: evaluateTimeout },
  // A process left behind is seen after any run; a pass needs one that answered (the path the kubelet depends on).
  { check: C.KP_NO_STDOUT_HOLDER, basis: BASIS.allAnswers, judge: evaluateNoStdoutHolder },
  { check: C.KP_NO_LEFTOVER_PROCESSES, basis: BASIS.allAnswers, judge: evaluateNoLeftovers },
  { check: C.KP_CONCURRENCY, basis: BASIS.concurrent, judge: evaluateConcurrency },
  { check: C.KP_SA_TOKEN_NOT_ECHOED, basis: BASIS.responses, judge: evaluateTokenNotEchoed },
];
