// No vacuous verdicts: every certify check, kubelet and exec, on plugins that
// give it nothing to judge: a script without a #! line and an empty file
// (execve refuses both, so no run starts), and a script that exits 2 on
// every run (no run answers). The start failure (or the failing plain run)
// fails KP-EXEC / EP-EXEC; a failure that is explained passes the checks about
// failures; every other check is skipped, with a reason that names what it
// lacked. None passes on nothing.
import { describe, expect, test } from '@jest/globals';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadProviderConfig } from '../api/credentialprovider/config.ts';
import { V1 } from '../api/exec/types.ts';
import { Redactor } from '../core/redact.ts';
import type { ClientProbe } from '../clients/probe.ts';
import { InvocationLog } from '../plugin/invocation.ts';
import type { CheckResult } from '../report/model.ts';
import { useTempDir } from '../testing/tmp.ts';
import { clientCheck } from './exec-plugin/clients.ts';
import { certifyExecPlugin } from './exec-plugin/certify.ts';
import { EXEC_PLUGIN_CHECKS } from './exec-plugin/checks.ts';
import { KUBELET_PLUGIN_CHECKS } from './kubelet-plugin/checks.ts';
import { certifyKubeletPlugin } from './kubelet-plugin/certify.ts';
import { chooseImages } from './kubelet-plugin/images.ts';

const tmp = useTempDir('credprov-never-starts-');

const PLUGINS = {
  'no #! line': { text: 'import sys\nprint("{}")\n', lacking: /no run started: all \d+ failed to start .*no #! line/ },
  'an empty file': { text: '', lacking: /no run started: all \d+ failed to start .*the file is empty \(0 bytes\)/ },
  'exit 2 on every run': {
    text: '#!/bin/sh\necho "cannot do it" >&2\nexit 2\n',
    lacking: /no run answered: all \d+ exited 2 \(stderr: cannot do it\)|on the first run it exited 2/,
  },
} as const;
type Kind = keyof typeof PLUGINS;

/** What each check may say when the plugin gives it nothing: skipped (naming what it lacked), or, for a few, a verdict of its own. */
const VERDICT: Record<string, Partial<Record<Kind, 'failed' | 'passed'>>> = {
  // Not starting, or failing a plain run, is the defect these name.
  'KP-EXEC': { 'no #! line': 'failed', 'an empty file': 'failed', 'exit 2 on every run': 'failed' },
  'EP-EXEC': { 'no #! line': 'failed', 'an empty file': 'failed', 'exit 2 on every run': 'failed' },
  // Failures with a reason on stderr are what these judge.
  'KP-FAILURE-EXPLAINED': { 'exit 2 on every run': 'passed' },
  'EP-FAILURE-EXPLAINED': { 'exit 2 on every run': 'passed' },
};

/** A skip must say why there was nothing; a skip that names another check's subject points there. */
const SKIP_REASON =
  /no run started|no run answered|no answer to judge|not run: no probe succeeded|first run already failed|has no tokenAttributes|no run returned a token|could not be started/;

async function plugin(kind: Kind): Promise<string> {
  const file = join(tmp(), kind.replace(/\W+/g, '-'));
  await writeFile(file, PLUGINS[kind].text);
  await chmod(file, 0o755);
  return file;
}

function expectNoVacuousVerdict(kind: Kind, checks: CheckResult[], ids: string[]): void {
  expect(checks.map((c) => c.id)).toEqual(ids);
  for (const c of checks) {
    const want = VERDICT[c.id]?.[kind] ?? 'skipped';
    expect(`${c.id}: ${c.status}`).toBe(`${c.id}: ${want}`);
    if (c.status === 'skipped') expect(`${c.id}: ${c.message}`).toMatch(SKIP_REASON);
  }
  // Whatever a check's own reason, the lack the plugin shows is said somewhere in its words.
  expect(checks.filter((c) => PLUGINS[kind].lacking.test(c.message)).length).toBeGreaterThan(0);
}

describe.each(Object.keys(PLUGINS) as Kind[])('a plugin that gives nothing to judge: %s', (kind) => {
  test('certify kubelet-plugin: no check passes on nothing', async () => {
    const provider = (await loadProviderConfig('fixtures/plugins/configs/v1.yaml')).providers[0]!;
    const { checks } = await certifyKubeletPlugin({
      plugin: await plugin(kind),
      provider,
      images: chooseImages(provider, []),
      redactor: new Redactor(),
      timeoutMs: 10_000,
    });
    expectNoVacuousVerdict(
      kind,
      checks,
      KUBELET_PLUGIN_CHECKS.map((c) => c.id),
    );
  }, 60_000);

  test('certify exec-plugin: no check passes on nothing, the client checks included', async () => {
    const started: string[] = [];
    // A client that would record being started: with no run started, none may be.
    const probe = (name: 'kubectl' | 'python'): ClientProbe => ({
      name,
      available: async () => ({ ok: true, version: 'test' }),
      start: async () => {
        started.push(name);
        throw new Error(`${name} was started for a plugin that gives it nothing to judge`);
      },
    });
    const neverStarts = kind !== 'exit 2 on every run';
    const { checks } = await certifyExecPlugin(
      {
        config: {
          command: await plugin(kind),
          args: [],
          env: [],
          apiVersion: V1,
          interactiveMode: 'Never',
          provideClusterInfo: false,
        },
        baseDir: tmp(),
      },
      {
        log: new InvocationLog(),
        timeoutMs: 10_000,
        clients: neverStarts
          ? [
              { probe: probe('kubectl'), version: 'test' },
              { probe: probe('python'), version: 'test' },
            ]
          : [],
      },
    );
    const clientIds = neverStarts ? [clientCheck('kubectl').id, clientCheck('python').id] : [];
    expectNoVacuousVerdict(kind, checks, [...EXEC_PLUGIN_CHECKS.map((c) => c.id), ...clientIds]);
    expect(started).toEqual([]);
  }, 60_000);
});
