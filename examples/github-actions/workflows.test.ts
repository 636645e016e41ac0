// The example workflows are valid GitHub Actions workflows: checked against
// the published workflow schema (check-jsonschema's vendored copy; setup
// installs it into a venv under the cache dir), and every credprov command
// they run exists.
import { describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { parse } from 'yaml';
import { COMMANDS } from '../../src/cli/commands.ts';
import { cacheDir } from '../../src/core/paths.ts';
import { testIf } from '../../src/testing/prerequisites.ts';

const DIR = import.meta.dirname;
const WORKFLOWS = ['certify-plugin.yml', 'qualify.yml', 'kind.yml'];
const CHECKER = join(cacheDir(), 'pytools', 'bin', 'check-jsonschema');
const withChecker = testIf(
  existsSync(CHECKER)
    ? { ok: true }
    : { ok: false, reason: `no ${CHECKER} (scripts/setup.sh installs check-jsonschema)` },
);

describe('example GitHub Actions workflows', () => {
  withChecker('validate against the GitHub workflow schema', async () => {
    const r = await execa(
      CHECKER,
      ['--builtin-schema', 'vendor.github-workflows', ...WORKFLOWS.map((w) => join(DIR, w))],
      { reject: false, all: true },
    );
    expect({ code: r.exitCode, output: r.exitCode === 0 ? '' : r.all }).toEqual({ code: 0, output: '' });
  });

  test.each(WORKFLOWS)('%s runs only credprov commands that exist', async (w) => {
    const doc = parse(await readFile(join(DIR, w), 'utf8')) as {
      jobs: Record<string, { steps: Array<{ run?: string }> }>;
    };
    const runs = Object.values(doc.jobs).flatMap((j) => j.steps.map((s) => s.run ?? ''));
    const commands = runs.flatMap((r) =>
      [...r.matchAll(/scripts\/credprov (\S+)(?: (\S+))?/g)].map((m) => [m[1]!, m[2] ?? '']),
    );
    expect(commands.length).toBeGreaterThan(0);
    for (const [a, b] of commands)
      expect(COMMANDS.some((c) => c.path.join(' ') === a || c.path.join(' ') === `${a} ${b}`)).toBe(true);
  });
});
