// A report with the long content real runs produce, for the layout tests of
// report.html. Most checks are real: testdata/default-run-excerpt.json holds
// eight checks of a default `credprov run` (2026-11-26; evidence cut to a few
// items), among them the two whose metric name and JSON made that run's
// report 1517 px wide. Beside them, failures the run did not have: a
// CACHE-KEY-IMAGE disagreement worded as judge() words it (the cache model's
// reason alone is ~680 characters), records keyed by long image references,
// a client table, and a log line without a space to break at.
import { readFileSync } from 'node:fs';
import type { CheckResult, RunReport } from './model.ts';

const EXCERPT = new URL('./testdata/default-run-excerpt.json', import.meta.url);

const DIGEST = 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const LONG_IMAGE = `registry-with-a-long-name.eu-central-1.example.internal:5000/platform/credential-provider-conformance/pause-for-ensure-secret-pulled-images@${DIGEST}`;
const CACHE_STEPS = [
  ['first pull of a.img.cache.test/cache/one', 1, 1],
  ['same image again', 0, 1],
  ['another image on the registry (a.img.cache.test/cache/two)', 1, 1],
  ['an image on another registry (b.img.cache.test/cache/one)', 1, 1],
] as const;
const CACHE_BECAUSE =
  'cache-image: cacheKeyType Image, cacheDuration 5m, defaultCacheDuration 5m: first pull of a.img.cache.test/cache/one: exec (no live entry under a.img.cache.test/cache/one, a.img.cache.test or <global>; stores key a.img.cache.test/cache/one for 300s (the response)); same image again: hit (cached under key a.img.cache.test/cache/one until +280s); another image on the registry (a.img.cache.test/cache/two): exec (no live entry under a.img.cache.test/cache/two, a.img.cache.test or <global>; stores key a.img.cache.test/cache/two for 300s (the response)); an image on another registry (b.img.cache.test/cache/one): exec (no live entry under b.img.cache.test/cache/one, b.img.cache.test or <global>; stores key b.img.cache.test/cache/one for 300s (the response))';
const showPulls = (i: 1 | 2) => CACHE_STEPS.map((s) => `${s[0]} → ${s[i] === 0 ? 'cached' : 'exec'}`).join(', ');

const base = (id: string, suite: string, status: CheckResult['status']): CheckResult => ({
  id,
  title: `${id}: a requirement stated in one sentence, as long as the checks' titles in suites/ tend to be`,
  level: 'MUST',
  source: 'KEP-2133: pkg/credentialprovider/plugin/plugin.go (v1.37.1): provide() stores under the request image',
  suite,
  status,
  message: '',
  evidence: [],
  startedAt: '2026-11-26T00:50:00Z',
  durationMs: 20_000,
});

export function longReport(): RunReport {
  const cacheKey: CheckResult = {
    ...base('CACHE-KEY-IMAGE', 'cache', 'failed'),
    cause: 'subject',
    message: `predicted ${showPulls(1)} (cache model (src/model/credential-cache.ts): ${CACHE_BECAUSE}); the kubelet: ${showPulls(2)}`,
    comparison: {
      model: 'cache model (src/model/credential-cache.ts)',
      because: CACHE_BECAUSE,
      predicted: CACHE_STEPS.map(([label, execs]) => ({ label, execs })),
      observed: CACHE_STEPS.map(([label, , execs]) => ({ label, execs })),
      agree: false,
    },
    evidence: [
      {
        kind: 'data',
        label: "schedule, ms after the origin: planned (the model's time) and done",
        data: CACHE_STEPS.map(([pull], i) => ({ pull, image: `a.img.cache.test/cache/one:v1`, plannedMs: i * 20_000 })),
      },
      {
        kind: 'log',
        label: 'kubelet log excerpt',
        file: 'artifacts/default/logs/kubelet.log',
        text: `I1126 00:50:01.123456 4242 plugin.go:280] "Getting image credentials from external credential provider" image="${LONG_IMAGE}" auth="${'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9'.repeat(12)}"`,
      },
    ],
  };
  const oneMinor: CheckResult = {
    ...base('DOWN-KUBELET-ONE-MINOR', 'downgrade', 'passed'),
    message:
      'the kubelets (v1.37.1 → v1.36.4): before: plugin execs 1 for 2 pulls; record pull Running; after (v1.36.4): plugin execs 1 for 1 pull; pod without credentials ErrImagePull, as predicted (the record of an image pulled with a secret is kept across the restart and the older kubelet reads it: a pod without credentials is refused; a kubelet that just started has nothing cached, so the first pull through the provider execs it)',
    comparison: {
      model: 'ensure-secret-pulled model and credential cache model',
      because:
        'the record of an image pulled with a secret is kept across the restart and the older kubelet reads it: a pod without credentials is refused; a kubelet that just started has nothing cached, so the first pull through the provider execs it',
      predicted: {
        beforeDowngrade: 'plugin execs 1 for 2 pulls; record pull Running',
        afterDowngrade: 'plugin execs 1 for 1 pull; pod without credentials ErrImagePull',
      },
      observed: {
        beforeDowngrade: 'plugin execs 1 for 2 pulls; record pull Running',
        afterDowngrade: 'plugin execs 1 for 1 pull; pod without credentials ErrImagePull',
      },
      agree: true,
    },
  };
  const records: CheckResult = {
    ...base('ESPI-RECORDS-CONTENT', 'ensure-secret-pulled-images', 'failed'),
    cause: 'subject',
    message: `1 of 3 records differ: ${LONG_IMAGE}: {"credentials":"node-wide","kubeletVersion":"v1.37.1"}`,
    comparison: {
      model: 'ensure-secret-pulled model (src/model/ensure-secret-pulled.ts)',
      because:
        'IfNotPresent | Always: a pull with a secret writes a record naming the secret | Never: no pull, no record',
      predicted: {
        [LONG_IMAGE]: { credentials: 'secret default/pull-secret-a', kubeletVersion: 'v1.37.1' },
        'a.img.cache.test/cache/one:v1': { credentials: 'node-wide', kubeletVersion: 'v1.37.1' },
        'b.img.cache.test/cache/one:v1': null,
      },
      observed: {
        [LONG_IMAGE]: { credentials: 'node-wide', kubeletVersion: 'v1.37.1' },
        'a.img.cache.test/cache/one:v1': { credentials: 'node-wide', kubeletVersion: 'v1.37.1' },
        'b.img.cache.test/cache/one:v1': null,
      },
      agree: false,
    },
  };
  // A value shown with JSON.stringify (~110 characters without a space) beside a metric name in the title:
  // together they made the checks table of a real run 1517 px wide.
  const restartView = {
    recordsDeleted: 0,
    recordsRewritten: 0,
    intentsConverted: 0,
    ondiskGauges: { pulledRecords: 75, pullIntents: 0 },
  };
  const restart: CheckResult = {
    ...base('ESPI-RECORDS-SURVIVE-RESTART-AND-DOWNGRADE', 'ensure-secret-pulled-images', 'passed'),
    title:
      'kubelet_imagemanager_image_mustpull_checks_total{result} and the ondisk_pulledrecords gauge after a kubelet restart',
    message: `the kubelet: ${JSON.stringify(restartView)}, as predicted (records of the same apiVersion are kept as they are)`,
    comparison: {
      model: 'ensure-secret-pulled model (src/model/ensure-secret-pulled.ts)',
      because: 'records of the same apiVersion are kept as they are',
      predicted: restartView,
      observed: restartView,
      agree: true,
    },
  };
  const clients = ['kubectl', 'client-go', 'client-node', 'python'];
  const clientChecks = clients.map((client, i): CheckResult => ({
    ...base(`X401-TOKEN-NEWLINE-${client.toUpperCase()}`, 'exec-plugin-401', i < 2 ? 'passed' : 'failed'),
    cell: {
      table: 'exec plugin answers × client',
      row: 'a token ending in an escaped newline',
      column: client,
      text: `refuses: net/http: invalid header field value for "Authorization" (${client})`,
    },
    message: `predicted refuses (client table: ${client} validates header values); ${client}: ${i < 2 ? 'refuses' : 'accepts'}`,
  }));
  const real = JSON.parse(readFileSync(EXCERPT, 'utf8')) as Omit<RunReport, 'summary'>;
  const checks = [...real.checks, cacheKey, oneMinor, records, restart, ...clientChecks];
  return {
    tool: real.tool,
    subject: { ...real.subject, image: LONG_IMAGE },
    checks,
    summary: {
      passed: checks.filter((c) => c.status === 'passed').length,
      failed: checks.filter((c) => c.status === 'failed').length,
      skipped: 0,
    },
    suites: [...new Set(checks.map((c) => c.suite!))].map(
      (name) => real.suites?.find((x) => x.name === name) ?? { name, summary: `the ${name} suite`, durationMs: 26_000 },
    ),
    startedAt: real.startedAt,
    durationMs: real.durationMs,
  };
}
