// A suite case's comparison in report.html: one table row per step (what
// credprov's model predicted, what the real component did, whether they are
// the same), the verdict, and the model's reasoning below it, a clause per
// line when it is long. Cells wrap anywhere, so an image reference or a token
// without spaces never widens the page.
import { esc } from './html-text.ts';
import type { Comparison } from './model.ts';
import { clausesOf, stepsOf, type Step } from './steps.ts';

/** Escaped, with a break opportunity after each "/": image references then wrap between path segments first. */
const text = (s: string): string => esc(s).replace(/\//g, '/<wbr>');

/** Above this many steps, the steps whose two sides are equal fold away under the ones that are not. */
export const STEPS_SHOWN = 12;

export function comparisonHtml(p: Comparison): string {
  const steps = stepsOf(p);
  const same = steps.filter((s) => s.same);
  const fold = steps.length > STEPS_SHOWN && same.length > 0;
  const open = fold ? steps.filter((s) => !s.same) : steps;
  const differing = steps.length - same.length;
  const verdict = p.agree
    ? '<b class="passed">agrees</b>'
    : `<b class="failed">differs</b>${differing ? ` in ${differing} of ${steps.length} step${steps.length === 1 ? '' : 's'}` : ''}`;
  const folded = fold
    ? `<details class="same-steps"><summary>${same.length} of ${steps.length} steps the same on both sides</summary>${table(same, p.agree)}</details>`
    : '';
  const clauses = clausesOf(p.because);
  const because =
    clauses.length > 1
      ? `<ul class="because">${clauses.map((c) => `<li>${esc(c)}</li>`).join('')}</ul>`
      : `<p class="because">${esc(p.because)}</p>`;
  return `<div class="comparison"><p class="verdict">The prediction ${verdict} with the real component.</p>
${open.length ? table(open, p.agree) : ''}${folded}
<p class="model">Model: ${esc(p.model)}, because:</p>${because}</div>`;
}

function table(steps: Step[], agree: boolean): string {
  const rows = steps
    .map((s) => `<tr class="${s.same ? 'same' : agree ? 'within' : 'differs'}">${stepCells(s, agree)}</tr>`)
    .join('');
  return `<table class="cmp"><colgroup><col class="step"><col><col><col class="agree"></colgroup>
<thead><tr><th>step</th><th>credprov predicted</th><th>the real component did</th><th>agree</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function stepCells(s: Step, agree: boolean): string {
  // A step that differs inside an agreeing comparison is within the check's own rule (a tolerance, a bound).
  const mark = s.same
    ? '<span class="passed">same</span>'
    : agree
      ? '<span title="not equal, but within the rule the check judges by">within rule</span>'
      : '<b class="failed">differs</b>';
  const side = (v: unknown) => (v === undefined ? '<span class="absent">(no such step)</span>' : value(v));
  return `<th scope="row">${text(s.name)}</th><td>${side(s.predicted)}</td><td>${side(s.observed)}</td><td>${mark}</td>`;
}

/** A step's value: text as is, objects as indented "key: value" lines, lists of words on one line. */
function value(v: unknown): string {
  if (v === null || typeof v !== 'object') return typeof v === 'string' ? text(v) : `<code>${esc(String(v))}</code>`;
  if (Array.isArray(v)) {
    if (v.length === 0) return '<code>[]</code>';
    if (v.every((x) => x === null || typeof x !== 'object')) return v.map(value).join(', ');
    return `<ol class="v">${v.map((x) => `<li>${value(x)}</li>`).join('')}</ol>`;
  }
  const entries = Object.entries(v);
  if (entries.length === 0) return '<code>{}</code>';
  return `<ul class="v">${entries.map(([k, x]) => `<li><span class="k">${text(k)}:</span> ${value(x)}</li>`).join('')}</ul>`;
}
