// credprov match PATTERN TARGET: the kubelet's matchImages decision as true/false.
import { UsageError } from '../core/errors.ts';
import { matchImage, matchPattern } from '../matching/url.ts';
import type { Command } from './command.ts';
import { parseFlags } from './flags.ts';

export const command: Command = {
  path: ['match'],
  summary: "print true/false: does a pattern match an image, by the kubelet's rules",
  usage: `Usage: credprov match PATTERN TARGET [--raw] [--json]

Prints true or false: would a matchImages entry (or a response auth key) of
PATTERN apply to TARGET under the kubelet's rules. TARGET is an image
reference and is first normalised as the kubelet does (nginx:1.25 becomes
docker.io/library/nginx). Rules: the ports must be equal as written; the
hosts must have the same number of labels, and '*', '[a-z]' glob within one
label only; the path is a plain string prefix (a '*' there is literal).

  --raw      compare TARGET as written, without image normalisation
  --json     print {match, reason, hint, pattern, target} instead
  --verbose  also print the reason on stderr

Exit 0 when it matches, 1 when not, 2 on a bad image reference or usage.

Examples:
  credprov match docker.io nginx                  # true
  credprov match '*.reg.io' a.b.reg.io/app        # false: label count differs
  credprov match 127.0.0.1 127.0.0.1:5000/pause   # false: port differs
`,
  async run(argv, ctx) {
    const { values, positionals } = parseFlags<{ raw?: boolean }>(
      'match',
      argv,
      { raw: { type: 'boolean' } },
      { positionals: true },
    );
    if (positionals.length !== 2) {
      throw new UsageError(
        `match: expected PATTERN and TARGET, got ${positionals.length} argument${positionals.length === 1 ? '' : 's'}`,
        {
          hint: "run 'credprov match --help'",
        },
      );
    }
    const [pattern, target] = positionals as [string, string];
    const r = values.raw ? matchPattern(pattern, target) : matchImage(pattern, target);
    if (ctx.json) {
      const normalised = r.detail?.image?.repository;
      ctx.stdout(
        `${JSON.stringify({ match: r.match, reason: r.reason, ...(r.hint ? { hint: r.hint } : {}), pattern, target, ...(normalised ? { normalised } : {}) })}\n`,
      );
    } else {
      ctx.stdout(`${r.match}\n`);
    }
    if (ctx.verbose) {
      const normalised =
        r.detail?.image && r.detail.image.repository !== target
          ? ` (image normalised to ${r.detail.image.repository})`
          : '';
      ctx.log.info(`${r.reason}${normalised}`);
      if (r.hint) ctx.log.info(`hint: ${r.hint}`);
    }
    return r.match ? 0 : 1;
  },
};
