// Turns observations into check results. Each check reads the runs it needs
// and nothing else, and names its basis: what a pass rests on (the certify
// kit skips a pass that rests on nothing). When a check depends on another's
// subject (no status, no certificate) it skips and says which check to read
// instead, so one defect is reported once, by the check that names it.
import { inspectClientCertificate } from '../../api/exec/certificate.ts';
import {
  findEmbeddedJsonObject,
  isRfc3339,
  parseJsonObject,
  parseStdoutLikeClientGo,
  rfc3339Defect,
} from '../../api/exec/credential.ts';
import { formatMs } from '../../core/duration.ts';
import type { Check, CheckResult } from '../../report/model.ts';
import { fail, harnessFail, pass, skip, type Outcome } from '../../report/checks.ts';
import type { ExecInvocation } from '../../plugin/client-exec.ts';
import { describeEnd, goExitCode } from '../../plugin/go-exec.ts';
import { cutNote, cutResponse, OUTPUT_LIMITS, size } from '../../plugin/invocation.ts';
import { answered, basisOf, formatRefusalHint, judgeCheck, whyNothing, type Basis } from '../kit.ts';
import * as C from './checks.ts';
import { answer, clip, configuredRuns, everyRun, evidence, status, str, whyNoAnswer, type Obj } from './observed.ts';
import { judgeTokenHeader } from './token-header.ts';
import { judgeAllowlistForm } from './allowlist-form.ts';
import type { Observations } from './runs.ts';

const TIMED_OUT = 'the first run timed out, nothing to judge (see EP-TIMEOUT)';

function noMainAnswer(o: Observations): string {
  if (o.main.timedOut) return TIMED_OUT;
  return `no answer to judge: on the first run ${whyNoAnswer(o.main)} (see ${o.main.exitCode === 0 ? 'EP-STDOUT-ONLY-JSON' : 'EP-EXEC'})`;
}

function withMainAnswer(o: Observations, body: (a: Obj) => Outcome): Outcome {
  const a = answer(o.main);
  return a ? body(a) : skip(noMainAnswer(o));
}

const runsOf = (runs: Array<[string, ExecInvocation]>) => runs.map(([, inv]) => inv);

/** What a pass of each check rests on. */
const B = {
  runs: (o: Observations): Basis => basisOf(everyRun(o), () => 'no run was made'),
  mainAnswer: (o: Observations): Basis => basisOf(answer(o.main) ? [o.main] : [], () => noMainAnswer(o)),
  stdout: (o: Observations): Basis =>
    basisOf(
      [o.main, o.repeat].filter((i): i is ExecInvocation => i !== undefined && answered(i)),
      () => whyNothing([o.main], 'an answer', 'EP-EXEC'),
    ),
  failures: (o: Observations): Basis =>
    basisOf(
      runsOf(everyRun(o)).filter((i) => !i.spawnError && !i.timedOut && (i.exitCode !== 0 || i.signal)),
      () => 'no run failed, not even a provoked one',
    ),
  nonInteractive: (o: Observations): Basis => {
    // Ending by itself proves nothing when the plugin never answers at all: it may fail before it would read stdin.
    const p = o.nonInteractiveProbe;
    const works = runsOf(everyRun(o)).some(answered);
    return basisOf(p && !p.timedOut && works ? [p] : [], () => whyNothing(runsOf(everyRun(o)), 'an answer', 'EP-EXEC'));
  },
  configuredAnswers: (o: Observations): Basis =>
    basisOf(runsOf(configuredRuns(o)).filter(answered), () =>
      whyNothing(runsOf(configuredRuns(o)), 'an answer', 'EP-EXEC'),
    ),
  answers: (o: Observations): Basis =>
    basisOf(runsOf(everyRun(o)).filter(answered), () => whyNothing(runsOf(everyRun(o)), 'an answer', 'EP-EXEC')),
  repeat: (o: Observations): Basis => basisOf(o.main.response && o.repeat ? [o.repeat] : [], () => noMainAnswer(o)),
  concurrent: (o: Observations): Basis => basisOf(o.main.response ? o.concurrent : [], () => noMainAnswer(o)),
  versionAnswers: (o: Observations): Basis =>
    basisOf(
      o.byVersion.filter(({ inv }) => answer(inv)),
      () =>
        whyNothing(
          o.byVersion.map(({ inv }) => inv),
          'an answer',
          'EP-EXEC',
        ),
    ),
  credentials: (o: Observations): Basis =>
    basisOf(
      runsOf(configuredRuns(o)).filter((i) => str(status(i), 'token') || str(status(i), 'clientKeyData')),
      () => 'no run returned a token or key to look for',
    ),
};

export async function evaluate(o: Observations, now: () => Date = () => new Date()): Promise<CheckResult[]> {
  const configured = o.plugin.config.apiVersion;
  const bodies: Array<[Check, (o: Observations) => Basis, () => Outcome]> = [
    [
      C.EP_EXEC,
      B.runs,
      () => {
        const runs = everyRun(o);
        const refused = runs.filter(([, inv]) => inv.spawnError);
        if (refused.length > 0) {
          const [label, inv] = refused[0]!;
          const why = formatRefusalHint(inv, 'client-go');
          return fail(
            `on the ${label} client-go could not start the plugin: "${inv.spawnError!.split('\n')[0]!}" (${refused.length} of ${runs.length} runs)${why ? `; ${why}` : ''}`,
            refused.slice(0, 3).map(([l, i]) => evidence(l, i)),
          );
        }
        // A plain run, nothing provoked: a plugin that fails it fails every client (timeouts are EP-TIMEOUT's).
        if (!o.main.timedOut && (o.main.exitCode !== 0 || o.main.signal)) {
          const declined = configuredRuns(o).filter(([, inv]) => !inv.timedOut && (inv.exitCode !== 0 || inv.signal));
          return fail(
            `on the first run, with nothing provoked, ${whyNoAnswer(o.main)} (${declined.length} of ${configuredRuns(o).length} such runs failed); client-go fails the request: "${o.main.decodeError ?? `exec: executable failed with exit code ${goExitCode(o.main)}`}"`,
            declined.slice(0, 3).map(([l, i]) => evidence(l, i)),
          );
        }
        return pass(`started all ${runs.length} runs; the plain first run exited 0`);
      },
    ],
    [
      C.EP_APIVERSION,
      B.mainAnswer,
      () =>
        withMainAnswer(o, () => {
          for (const [label, inv] of configuredRuns(o)) {
            const a = answer(inv);
            if (!a) continue;
            if (a.apiVersion !== configured) {
              return fail(
                `configured with ${configured}, the plugin answered with apiVersion ${JSON.stringify(a.apiVersion ?? null)} on the ${label}; client-go refuses it ("exec plugin is configured to use API version ${configured}, plugin returned version ${String(a.apiVersion ?? '')}")`,
                [evidence(label, inv)],
              );
            }
          }
          return pass(`every answer used ${configured}`);
        }),
    ],
    [
      C.EP_KIND,
      B.mainAnswer,
      () =>
        withMainAnswer(o, (a) => {
          if (a.kind === 'ExecCredential') return pass('kind is ExecCredential');
          // client-go fills a missing kind in (upstream's own test plugin leaves it out); only a wrong one breaks it.
          if (a.kind === undefined || a.kind === null || a.kind === '')
            return pass(
              'kind is absent: client-go assumes ExecCredential; writing kind: ExecCredential helps other clients',
            );
          return fail(
            `the answer has kind ${JSON.stringify(a.kind)}; it must be "ExecCredential" (client-go: "no kind ${JSON.stringify(String(a.kind))} is registered")`,
            [evidence('first run', o.main)],
          );
        }),
    ],
    [
      C.EP_STATUS,
      B.mainAnswer,
      () =>
        withMainAnswer(o, (a) => {
          if (a.status === undefined || a.status === null)
            return fail('the answer has no status field; client-go: "exec plugin didn\'t return a status field"', [
              evidence('first run', o.main),
            ]);
          if (typeof a.status !== 'object' || Array.isArray(a.status))
            return fail(`status is ${Array.isArray(a.status) ? 'a list' : typeof a.status}; it must be an object`, [
              evidence('first run', o.main),
            ]);
          return pass('status is present');
        }),
    ],
    [
      C.EP_CREDENTIAL_SHAPE,
      B.mainAnswer,
      () => {
        if (!answer(o.main)) return skip(noMainAnswer(o));
        const s = status(o.main);
        if (!s) return skip('no status to look into (see EP-STATUS)');
        const token = str(s, 'token');
        const cert = str(s, 'clientCertificateData');
        const key = str(s, 'clientKeyData');
        const t = s.token;
        const odd =
          t !== undefined && t !== null && typeof t !== 'string' && t !== false && t !== 0
            ? {
                trait: 'token-not-string',
                detail: `status.token is ${Array.isArray(t) ? 'an array' : `a ${typeof t}`} (${clip(JSON.stringify(t), 40)}), not a string`,
              }
            : (t === null || t === false || t === 0) && !(cert && key)
              ? { trait: 'token-falsy', detail: `status.token is ${JSON.stringify(t)}, and there is no certificate` }
              : undefined;
        if (odd?.trait === 'token-not-string')
          return fail(
            `${odd.detail}: client-go refuses the answer ("cannot unmarshal … into Go struct field ExecCredentialStatus.status.token of type string"), while client-node and the Python client send "Bearer ${clip(String(s.token), 40)}"; return the token as a JSON string`,
            [evidence('first run', o.main)],
          );
        if (!token && !cert && !key)
          return fail(
            `${odd ? `${odd.detail}: ` : `status holds neither token nor clientCertificateData/clientKeyData (its fields: ${Object.keys(s).join(', ') || 'none'}); `}client-go: "exec plugin didn't return a token or cert/key pair"${odd ? `, and the Python client sends "Bearer ${String(s.token)}"` : ''}`,
            [evidence('first run', o.main)],
          );
        if (!cert !== !key)
          return fail(
            `status has ${cert ? 'clientCertificateData without clientKeyData' : 'clientKeyData without clientCertificateData'}; client-go: "exec plugin returned only certificate or key, not both"`,
            [evidence('first run', o.main)],
          );
        if (s.token === '' && cert)
          return fail(
            'status holds token: "" next to the client certificate: client-go ignores an empty token, but the Python client sends "Bearer " (no token) and never loads the certificate (\'token\' in status wins); leave token out when there is none',
            [evidence('first run', o.main)],
          );
        const kinds = [token ? 'a token' : '', cert ? 'a client certificate and key' : '']
          .filter(Boolean)
          .join(' and ');
        return pass(
          `status holds ${kinds}${token && cert ? ' (client-go uses both; the API server takes the first that authenticates)' : ''}`,
        );
      },
    ],
    [
      C.EP_TOKEN_HEADER_VALUE,
      B.mainAnswer,
      () => {
        if (!answer(o.main)) return skip(noMainAnswer(o));
        const s = status(o.main);
        if (!s) return skip('no status to look into (see EP-STATUS)');
        const token = str(s, 'token');
        if (!token) return skip('the plugin returns no token');
        return judgeTokenHeader(token, [evidence('first run', o.main)]);
      },
    ],
    [
      C.EP_CERT_VALID,
      B.mainAnswer,
      () => {
        if (!answer(o.main)) return skip(noMainAnswer(o));
        const s = status(o.main);
        const cert = str(s, 'clientCertificateData');
        const key = str(s, 'clientKeyData');
        if (!cert && !key) return skip('the plugin returns no client certificate');
        if (!cert || !key) return skip('certificate or key missing (see EP-CREDENTIAL-SHAPE)');
        const v = inspectClientCertificate(cert, key, new Date(o.main.startedAt));
        return v.ok ? pass(v.message) : fail(v.message, [evidence('first run', o.main)]);
      },
    ],
    [
      C.EP_EXPIRY_FORMAT,
      B.mainAnswer,
      () => {
        if (!answer(o.main)) return skip(noMainAnswer(o));
        const s = status(o.main);
        if (!s) return skip('no status to look into (see EP-STATUS)');
        const ts = s.expirationTimestamp;
        if (ts === undefined || ts === null) return skip('no expirationTimestamp (see EP-SETS-EXPIRY)');
        if (typeof ts !== 'string' || !isRfc3339(ts)) {
          const defect =
            typeof ts === 'string'
              ? rfc3339Defect(ts)
              : `a JSON ${Array.isArray(ts) ? 'array' : typeof ts}, not a string`;
          return fail(
            `expirationTimestamp ${clip(JSON.stringify(ts), 80)} is not RFC 3339 (${defect}): client-go refuses the answer ("decoding stdout: …"); write it in the 2006-01-02T15:04:05Z07:00 layout, with a zone`,
            [evidence('first run', o.main)],
          );
        }
        const answeredAt = new Date(Date.parse(o.main.startedAt) + o.main.durationMs);
        if (Date.parse(ts) <= answeredAt.getTime()) {
          return fail(
            `expirationTimestamp ${ts} is not in the future (answered at ${answeredAt.toISOString()}): the credential is expired when handed out, so client-go runs the plugin again on every request`,
            [evidence('first run', o.main)],
          );
        }
        return pass(`expires at ${ts}, ${formatMs(Date.parse(ts) - answeredAt.getTime())} after the answer`);
      },
    ],
    [
      C.EP_STDOUT_ONLY_JSON,
      B.stdout,
      () => {
        for (const [label, inv] of [
          ['first run', o.main],
          ['second run', o.repeat],
        ] as Array<[string, ExecInvocation | undefined]>) {
          if (!inv || inv.exitCode !== 0 || inv.timedOut) continue;
          const cut = cutResponse(inv);
          if (cut) {
            // credprov's own limit, not the plugin's fault: client-go reads all of stdout.
            return harnessFail(
              `on the ${label} ${cut}: credprov keeps at most ${size(OUTPUT_LIMITS.stdout)} of stdout, so it cannot judge this ExecCredential, which client-go reads whole`,
              [evidence(label, inv)],
            );
          }
          if (inv.stdout.startsWith('\uFEFF'))
            return fail(
              `stdout on the ${label} starts with a UTF-8 byte-order mark: kubectl and client-go read past it (as YAML), but @kubernetes/client-node (JSON.parse) and the Python client (json.loads: "Unexpected UTF-8 BOM") refuse the answer; write the JSON without a BOM`,
              [evidence(label, inv)],
            );
          if (parseJsonObject(inv.stdout).ok) continue;
          const asClientGo = parseStdoutLikeClientGo(inv.stdout);
          if (asClientGo.ok && asClientGo.format === 'yaml') {
            return fail(
              `stdout on the ${label} is YAML, not JSON: kubectl accepts it (client-go's universal decoder), but KEP-541's output format is JSON and other clients (@kubernetes/client-node, scripts) JSON.parse it; print the ExecCredential as JSON`,
              [evidence(label, inv)],
            );
          }
          const found = findEmbeddedJsonObject(inv.stdout);
          if (!found)
            return fail(
              `stdout on the ${label} is not a JSON object: ${JSON.stringify(clip(inv.stdout.trim(), 80))}${cutNote(inv)}; print only the ExecCredential JSON on stdout`,
              [evidence(label, inv)],
            );
          const noise = [
            found.before.trim() ? `before it: ${JSON.stringify(clip(found.before.trim(), 60))}` : '',
            found.after.trim() ? `after it: ${JSON.stringify(clip(found.after.trim(), 60))}` : '',
          ]
            .filter(Boolean)
            .join('; ');
          return fail(
            `stdout on the ${label} holds more than the ExecCredential JSON (${noise})${cutNote(inv)}; client-go decodes all of stdout, so move logs and banners to stderr`,
            [evidence(label, inv)],
          );
        }
        if (o.main.timedOut || o.main.exitCode !== 0) return skip(noMainAnswer(o));
        return pass('stdout is exactly one JSON object');
      },
    ],
    [
      C.EP_FAILURE_EXPLAINED,
      B.failures,
      () => {
        const failures: Array<[string, ExecInvocation]> = [];
        for (const p of o.provoked) {
          const inv = p.inv;
          if (inv.timedOut || inv.spawnError) continue;
          if (inv.exitCode === 0) {
            const s = status(inv);
            if (!s || (!str(s, 'token') && !str(s, 'clientCertificateData'))) {
              return fail(
                `when ${p.describe}, the plugin exited 0 without a credential on stdout; a run that cannot produce a credential must exit non-zero and say why on stderr`,
                [evidence(`provoked: ${p.name}`, inv)],
              );
            }
            continue;
          }
          failures.push([`provoked: ${p.name} (${p.describe})`, inv]);
        }
        for (const [label, inv] of configuredRuns(o))
          if (inv.exitCode !== 0 && !inv.timedOut && !inv.spawnError) failures.push([label, inv]);
        if (failures.length === 0) {
          const provoked = o.provoked.map((p) => p.inv);
          if (!provoked.some((i) => !i.spawnError && !i.timedOut))
            return skip(whyNothing(provoked, 'a run that started', 'EP-EXEC, EP-TIMEOUT'));
          return skip(
            `could not provoke a failure: the plugin produced a credential even when ${o.provoked.map((p) => p.describe).join(', and when ')}`,
          );
        }
        const silent = failures.find(([, inv]) => inv.stderr.trim() === '');
        if (silent) {
          return fail(
            `the plugin ${describeEnd(silent[1])} with nothing on stderr on the ${silent[0]}; client-go shows users only "${silent[1].decodeError ?? `failed with exit code ${goExitCode(silent[1])}`}", so print the reason on stderr`,
            [evidence(silent[0], silent[1])],
          );
        }
        const [label, first] = failures[0]!;
        return pass(
          `${failures.length} failing run(s) exited non-zero with a reason on stderr, e.g. ${label}: ${JSON.stringify(clip(first.stderr.trim().split('\n').pop() ?? '', 120))}`,
        );
      },
    ],
    [
      C.EP_NONINTERACTIVE_NO_BLOCK,
      B.nonInteractive,
      () => {
        if (o.plugin.config.interactiveMode === 'Always')
          return skip('interactiveMode is Always: client-go never runs this plugin without a terminal');
        const inv = o.nonInteractiveProbe;
        if (!inv) return skip('the first run already timed out (see EP-TIMEOUT)');
        if (inv.timedOut) {
          return fail(
            `told spec.interactive=false with an open but silent stdin, the plugin blocked for ${formatMs(o.timeoutMs)} and was killed: it waits for input it was told it would not get (client-go passes /dev/null, @kubernetes/client-node an open pipe); check spec.interactive in KUBERNETES_EXEC_INFO before reading stdin`,
            [evidence('non-interactive run with an open stdin', inv)],
          );
        }
        return pass(`answered in ${formatMs(inv.durationMs)} without reading stdin`);
      },
    ],
    [
      C.EP_TIMEOUT,
      B.configuredAnswers,
      () => {
        const slow = configuredRuns(o).find(([, inv]) => inv.timedOut);
        if (slow)
          return fail(
            `the ${slow[0]} did not answer within ${formatMs(o.timeoutMs)} and was killed; client-go has no timeout, so every request would hang on it`,
            [evidence(slow[0], slow[1])],
          );
        const max = Math.max(...configuredRuns(o).map(([, inv]) => inv.durationMs));
        return pass(`slowest run ${formatMs(max)} (timeout ${formatMs(o.timeoutMs)})`);
      },
    ],
    [
      C.EP_NO_STDOUT_HOLDER,
      B.answers,
      () => {
        const runs = everyRun(o);
        const held = runs.filter(([, inv]) => inv.strays?.some((s) => s.holds.includes('stdout')));
        if (held.length > 0) {
          const [label, inv] = held[0]!;
          const s = inv.strays!.find((x) => x.holds.includes('stdout'))!;
          return fail(
            `on the ${label} the plugin exited but left pid ${s.pid} (${clip(s.cmdline, 120)}) holding its stdout (${held.length} of ${runs.length} runs); client-go reads stdout to its end, so kubectl hangs until that process exits: start helpers with their output redirected, or wait for them`,
            held.slice(0, 3).map(([l, i]) => evidence(l, i)),
          );
        }
        return pass(`stdout closed when the plugin exited, in all ${runs.length} runs`);
      },
    ],
    [
      C.EP_NO_LEFTOVER_PROCESSES,
      B.answers,
      () => {
        const runs = everyRun(o);
        // Holders of stdout are EP-NO-STDOUT-HOLDER's: one defect, one verdict.
        const left = runs.filter(([, inv]) => inv.strays?.some((s) => !s.holds.includes('stdout')));
        if (left.length > 0) {
          const [label, inv] = left[0]!;
          const s = inv.strays!.find((x) => !x.holds.includes('stdout'))!;
          return fail(
            `on the ${label} the plugin left pid ${s.pid} (${clip(s.cmdline, 120)}) running after it exited (${left.length} of ${runs.length} runs); every kubectl command runs the plugin again, so these pile up`,
            left.slice(0, 3).map(([l, i]) => evidence(l, i)),
          );
        }
        return pass(`no process left running after any of the ${runs.length} runs`);
      },
    ],
    [
      C.EP_REPEAT,
      B.repeat,
      () => {
        if (!o.repeat) return skip('the first run timed out (see EP-TIMEOUT)');
        if (!o.main.response) return skip(`the first run already failed: ${o.main.decodeError ?? whyNoAnswer(o.main)}`);
        if (o.repeat.response) return pass('the second run returned a usable credential');
        return fail(
          `the first run succeeded but the second did not: ${o.repeat.decodeError ?? whyNoAnswer(o.repeat)}`,
          [evidence('second run', o.repeat)],
        );
      },
    ],
    [
      C.EP_CONCURRENCY,
      B.concurrent,
      () => {
        if (o.concurrent.length === 0) return skip('the first run timed out (see EP-TIMEOUT)');
        if (!o.main.response) return skip(`the first run already failed: ${o.main.decodeError ?? whyNoAnswer(o.main)}`);
        const bad = o.concurrent.filter((inv) => !inv.response);
        if (bad.length === 0) return pass(`${o.concurrent.length} concurrent runs all returned usable credentials`);
        const first = bad[0]!;
        return fail(
          `${bad.length} of ${o.concurrent.length} concurrent runs failed, e.g. ${first.decodeError ?? whyNoAnswer(first)}${first.stderr.trim() ? ` (stderr: ${clip(first.stderr.trim().split('\n').pop()!, 120)})` : ''}; guard shared state (caches, callback ports) with a lock`,
          bad.slice(0, 3).map((inv) => evidence('concurrent run', inv)),
        );
      },
    ],
    [
      C.EP_FOLLOWS_EXEC_INFO_VERSION,
      B.versionAnswers,
      () => {
        if (o.byVersion.length === 0) return skip('the first run timed out (see EP-TIMEOUT)');
        const seen: string[] = [];
        for (const { apiVersion, inv } of o.byVersion) {
          const a = answer(inv);
          if (!a) {
            // Not starting, hanging or failing silently are EP-EXEC's, EP-TIMEOUT's and EP-FAILURE-EXPLAINED's.
            if (inv.spawnError || inv.timedOut) continue;
            if (inv.exitCode === 0 && !inv.signal)
              return fail(`configured with ${apiVersion}, ${whyNoAnswer(inv)}`, [
                evidence(`run configured with ${apiVersion}`, inv),
              ]);
            const said = inv.stderr.trim().split('\n').pop();
            seen.push(
              `${apiVersion.split('/')[1]}: declined (${said ? clip(said, 80) : `${describeEnd(inv)} silently`})`,
            );
            continue;
          }
          if (a.apiVersion !== apiVersion) {
            return fail(
              `KUBERNETES_EXEC_INFO asked for ${apiVersion} but the plugin answered with ${JSON.stringify(a.apiVersion ?? null)}: it ignores the requested version, so a kubeconfig with apiVersion ${apiVersion} breaks; read apiVersion from KUBERNETES_EXEC_INFO`,
              [evidence(`run configured with ${apiVersion}`, inv)],
            );
          }
          seen.push(`${apiVersion.split('/')[1]}: answered in kind`);
        }
        return pass(seen.join('; '));
      },
    ],
    [
      C.EP_SETS_EXPIRY,
      B.mainAnswer,
      () => {
        if (!answer(o.main)) return skip(noMainAnswer(o));
        const s = status(o.main);
        if (!s) return skip('no status to look into (see EP-STATUS)');
        if (s.expirationTimestamp === undefined || s.expirationTimestamp === null) {
          return fail(
            'status has no expirationTimestamp: clients keep the credential until the process ends or a 401, so long-running clients fail once it expires; set expirationTimestamp',
            [evidence('first run', o.main)],
          );
        }
        return pass(`expirationTimestamp ${String(s.expirationTimestamp)}`);
      },
    ],
    [
      C.EP_NO_SECRETS_ON_STDERR,
      B.credentials,
      () => {
        const runs: Array<[string, ExecInvocation]> = [
          ...configuredRuns(o),
          ...o.byVersion.map(
            ({ apiVersion, inv }) => [`run configured with ${apiVersion}`, inv] as [string, ExecInvocation],
          ),
        ];
        const secrets = new Set<string>();
        for (const [, inv] of runs) {
          const s = status(inv);
          for (const k of ['token', 'clientKeyData']) if (str(s, k).length >= 8) secrets.add(str(s, k));
        }
        for (const [label, inv] of runs) {
          if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(inv.stderr))
            return fail(
              `the ${label} printed a private key on stderr; client-go copies stderr to the user's terminal and CI logs`,
              [evidence(label, inv)],
            );
          for (const secret of secrets) {
            if (inv.stderr.includes(secret))
              return fail(
                `the ${label} printed the credential it returned (token or key) on stderr; client-go copies stderr to the user's terminal and CI logs`,
                [evidence(label, inv)],
              );
          }
        }
        return pass(`no returned token or key on stderr across ${runs.length} runs`);
      },
    ],
    // The kubeconfig's form, judged once the plugin answered (a plugin that never answers fails elsewhere).
    [C.EP_ALLOWLIST_FORM, B.mainAnswer, () => withMainAnswer(o, () => judgeAllowlistForm(o.plugin.config))],
  ];
  // One defect, one verdict: a plugin whose answer was cut before its end (EP-STDOUT-ONLY-JSON) gave the
  // checks of the answer nothing to judge.
  const judgesAnswer = new Set<Check>([
    C.EP_APIVERSION,
    C.EP_KIND,
    C.EP_STATUS,
    C.EP_CREDENTIAL_SHAPE,
    C.EP_TOKEN_HEADER_VALUE,
    C.EP_CERT_VALID,
    C.EP_EXPIRY_FORMAT,
    C.EP_REPEAT,
    C.EP_CONCURRENCY,
    C.EP_FOLLOWS_EXEC_INFO_VERSION,
    C.EP_SETS_EXPIRY,
  ]);
  const cut = cutResponse(o.main);
  const results: CheckResult[] = [];
  for (const [check, basis, body] of bodies) {
    const judge =
      cut && judgesAnswer.has(check)
        ? () => skip(`not judged: on the first run ${cut} (see EP-STDOUT-ONLY-JSON)`)
        : body;
    results.push(await judgeCheck({ check, basis, judge }, o, now));
  }
  return results;
}
