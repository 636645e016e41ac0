// The kubectl cases: 200 and whoami for a known account, the JWT bearer
// assertion the fake received, the expiry the plugin answers, ADC mode's
// missing cache, refused assertions, and a revoked token. One at a time: each
// reads the plugin runs and grants of its own kubectl calls.
import { readFile } from 'node:fs/promises';
import { ADC_200, ASSERTION, BAD_ASSERTION, EXEC_INFO_V1, EXPIRY, NO_CACHE, REVOKED, WHOAMI } from './checks.ts';
import { AFTER_REVOKE_MS, PROBE_PATH } from './plan.ts';
import {
  assertionAgrees,
  BAD_KEY_SAYS,
  expiryAgrees,
  predictAdcCall,
  predictAssertion,
  predictExpiryOffset,
  predictNoCache,
  predictRefusal,
  predictRevoked,
  predictV1User,
  VERSION_MISMATCH_SAYS,
  predictWhoami,
  sameIdentity,
  UNKNOWN_ACCOUNT_SAYS,
  type AssertionView,
  type CallView,
  type RefusalView,
} from './predict.ts';
import { attemptEvidence, existing, reducedAnswer, type Attempt, type GkeSession } from './session.ts';
import { answerOf, caseOf, judge, sleep, tokenFingerprint, userInfoOf, V1, type Case } from '../../src/run/kit.ts';

const GET = ['get', '--raw', PROBE_PATH];
const callView = (a: Attempt): CallView => ({
  status: a.status ?? 'none',
  pluginRuns: a.runs.length,
  tokenRequests: a.grants.length,
});
const showCall = (v: CallView) => `HTTP ${v.status}, ${v.pluginRuns} plugin run(s), ${v.tokenRequests} grant(s)`;

export const adc200Case = (s: GkeSession): Case =>
  caseOf(ADC_200, async () => {
    const a = await s.attempt('viewer', GET);
    return judge(ADC_200, {
      prediction: predictAdcCall(),
      observed: callView(a),
      actor: 'kubectl → gke-gcloud-auth-plugin → fake token_uri; kube-apiserver → token webhook',
      show: showCall,
      evidence: attemptEvidence('--user viewer get --raw /api', [a]),
    });
  });

export const whoamiCase = (s: GkeSession): Case =>
  caseOf(WHOAMI, async () => {
    const a = await s.attempt('viewer', ['auth', 'whoami', '-o', 'json']);
    const user = userInfoOf(a.stdout);
    return judge(WHOAMI, {
      prediction: predictWhoami(s.lab.subjectOf('viewer')),
      observed: { username: user?.username ?? `(none: ${a.status ?? a.exitCode})`, groups: user?.groups ?? [] },
      actor: 'kubectl auth whoami',
      agree: sameIdentity,
      show: (v) => `${v.username} [${v.groups.join(', ')}]`,
      evidence: [
        { kind: 'data', label: 'SelfSubjectReview status.userInfo', data: user ?? a.stdout.slice(0, 2000) },
        ...attemptEvidence('--user viewer auth whoami', [a]),
      ],
    });
  });

/** The grant the fake received for the viewer's key, as the fake recorded it (header and claims, never the JWS). */
export const assertionCase = (s: GkeSession): Case =>
  caseOf(ASSERTION, async () => {
    const a = await s.attempt('viewer', GET);
    const g = a.grants[0];
    const c = g?.assertion?.claims;
    const observed: AssertionView = {
      grantType: g?.grantType,
      alg: g?.assertion?.header.alg,
      typ: g?.assertion?.header.typ,
      kid: g?.assertion?.header.kid,
      iss: c?.iss,
      aud: c?.aud,
      scope: c?.scope,
      lifetimeS: c?.exp !== undefined && c.iat !== undefined ? c.exp - c.iat : undefined,
      iatBackS: g && c?.iat !== undefined ? Math.round(g.atMs / 1000 - c.iat) : undefined,
    };
    const key = JSON.parse(await readKey(s)) as { private_key_id: string; client_email: string; token_uri: string };
    return judge(ASSERTION, {
      prediction: predictAssertion({ keyId: key.private_key_id, email: key.client_email, tokenUri: key.token_uri }),
      observed,
      actor: 'gke-gcloud-auth-plugin (golang.org/x/oauth2 jwt)',
      agree: assertionAgrees,
      show: (v) =>
        `${v.alg} kid ${v.kid?.slice(0, 8)}…, iss ${v.iss}, aud ${v.aud}, scope "${v.scope}", exp-iat ${v.lifetimeS}s, iat ${v.iatBackS}s back`,
      problems: g && g.status !== 200 ? [`the fake refused the grant: ${g.error}`] : [],
      evidence: attemptEvidence('--user viewer get --raw /api', [a]),
    });
  });

const readKey = (s: GkeSession): Promise<string> => readFile(s.lab.keyFileOf('viewer'), 'utf8');

export const expiryCase = (s: GkeSession): Case =>
  caseOf(EXPIRY, async () => {
    const a = await s.attempt('viewer', GET);
    const answer = a.runs[0] ? answerOf(a.runs[0]) : {};
    const issued = a.grants.find(
      (g) => answer.token && g.issued?.fingerprint === tokenFingerprint(answer.token),
    )?.issued;
    const offset =
      answer.expirationTimestamp && issued
        ? Math.round((Date.parse(answer.expirationTimestamp) - Date.parse(issued.expiresAt)) / 1000)
        : NaN;
    return judge(EXPIRY, {
      prediction: predictExpiryOffset(),
      observed: offset,
      actor: 'gke-gcloud-auth-plugin',
      agree: expiryAgrees,
      show: (v) =>
        Number.isFinite(v) ? `expirationTimestamp ${v}s from the token's expiry` : 'no expirationTimestamp or no grant',
      evidence: [
        {
          kind: 'data',
          label: "the plugin's answer and the fake's grant",
          data: { answer: a.runs[0] ? reducedAnswer(a.runs[0]) : null, issued },
        },
      ],
    });
  });

export const noCacheCase = (s: GkeSession): Case =>
  caseOf(NO_CACHE, async () => {
    const first = await s.attempt('viewer', GET);
    const second = await s.attempt('viewer', GET);
    const runs = [...first.runs, ...second.runs];
    const tokens = new Set(runs.map((r) => answerOf(r).token).filter(Boolean));
    return judge(NO_CACHE, {
      prediction: predictNoCache(),
      observed: {
        pluginRuns: runs.length,
        tokenRequests: first.grants.length + second.grants.length,
        distinctTokens: tokens.size,
        cacheFiles: await existing(s.cacheCandidates()),
      },
      actor: 'gke-gcloud-auth-plugin under two kubectl calls',
      show: (v) =>
        `${v.pluginRuns} runs, ${v.tokenRequests} grants, ${v.distinctTokens} distinct tokens, cache files: ${v.cacheFiles.join(', ') || 'none'}`,
      evidence: [
        ...attemptEvidence('--user viewer get --raw /api, twice', [first, second]),
        { kind: 'data', label: 'where the plugin would keep its cache (cred.go:350-356)', data: s.cacheCandidates() },
      ],
    });
  });

export const badAssertionCase = (s: GkeSession): Case =>
  caseOf(BAD_ASSERTION, async () => {
    const view = (a: Attempt, says: string): RefusalView => {
      const said = a.grants.map((g) => g.error ?? '').find((e) => e.includes(says));
      return {
        pluginExit: a.runs[0]?.exitCode ?? 'none',
        tokenRequests: a.grants.length,
        endpointSaid: said && a.runs[0]?.stderr.includes(says) ? says : (a.grants[0]?.error ?? '(no grant)'),
        requestSent: a.status !== undefined,
      };
    };
    const badKey = await s.attempt('bad-key', GET);
    const unknown = await s.attempt('unknown', GET);
    const p = [predictRefusal('bad-key'), predictRefusal('unknown')];
    return judge(BAD_ASSERTION, {
      prediction: { value: [p[0]!.value, p[1]!.value], model: p[0]!.model, because: p[0]!.because },
      observed: [view(badKey, BAD_KEY_SAYS), view(unknown, UNKNOWN_ACCOUNT_SAYS)],
      actor: 'the fake token endpoint, then gke-gcloud-auth-plugin, then kubectl',
      show: (v) =>
        v
          .map(
            (x) =>
              `exit ${x.pluginExit} after ${x.tokenRequests} grants ("${x.endpointSaid}"), ${x.requestSent ? 'a request was sent' : 'nothing sent'}`,
          )
          .join('; '),
      evidence: [...attemptEvidence('--user bad-key', [badKey]), ...attemptEvidence('--user unknown', [unknown])],
    });
  });

/** Last of the kubectl cases: it revokes the viewer's tokens. */
export const revokedCase = (s: GkeSession): Case =>
  caseOf(REVOKED, async () => {
    const before = await s.attempt('viewer', GET);
    const revoked = s.lab.fake.revoke({ subject: s.lab.subjectOf('viewer') });
    await sleep(AFTER_REVOKE_MS);
    const after = await s.attempt('viewer', GET);
    const token = after.runs[0] ? answerOf(after.runs[0]).token : undefined;
    return judge(REVOKED, {
      prediction: predictRevoked(),
      observed: {
        before: before.status ?? 'none',
        after: after.status ?? 'none',
        freshToken: token !== undefined && !revoked.includes(tokenFingerprint(token)),
        tokenRequestsAfter: after.grants.length,
      },
      actor: 'gke-gcloud-auth-plugin under kubectl, around a server-side revocation',
      show: (v) =>
        `HTTP ${v.before} → revoke → HTTP ${v.after}, ${v.freshToken ? 'a fresh token' : 'a revoked token'}, ${v.tokenRequestsAfter} grant(s) after`,
      evidence: [
        { kind: 'data', label: 'revoked token fingerprints', data: revoked },
        ...attemptEvidence('--user viewer get --raw /api, before and after the revocation', [before, after]),
      ],
    });
  });

/** The plugin's version handling: predicted from its source, and a failed SHOULD when it does not answer v1. */
export const v1UserCase = (s: GkeSession): Case =>
  caseOf(EXEC_INFO_V1, async () => {
    const a = await s.attempt('viewer-v1', GET);
    const answered = a.runs[0] ? (answerOf(a.runs[0]).apiVersion ?? '(unparsable answer)') : '(the plugin did not run)';
    return judge(EXEC_INFO_V1, {
      prediction: predictV1User(),
      observed: {
        answered,
        kubectlRefused: a.stderr.includes(VERSION_MISMATCH_SAYS),
        requestSent: a.status !== undefined,
      },
      actor: 'gke-gcloud-auth-plugin under kubectl, as a v1 user',
      show: (v) =>
        `answer in ${v.answered}, ${v.kubectlRefused ? 'kubectl refused it' : 'kubectl took it'}, ${v.requestSent ? 'a request was sent' : 'nothing sent'}`,
      problems:
        answered === V1
          ? []
          : [
              `the plugin answers ${answered} to a ${V1} user (it never reads KUBERNETES_EXEC_INFO): a kubeconfig whose exec.apiVersion is v1 cannot use it`,
            ],
      evidence: attemptEvidence('--user viewer-v1 get --raw /api', [a]),
    });
  });
