// report.html: one self-contained file (inline CSS and script, no network
// fetch) that a person opens from a CI artifact. A summary bar, a suite ×
// check table filterable by status and text, and per check its comparison
// (a table of steps: html-comparison.ts) and evidence: plugin invocations,
// pod events, log excerpts. For certify runs, the plugin's latency
// histogram. Like every writer it renders an already redacted RunReport and
// nothing else.
import { isDeepStrictEqual } from 'node:util';
import { failedFirst, type CheckResult, type Evidence, type RunReport } from './model.ts';
import { gridsOf } from './grid.ts';
import { comparisonHtml } from './html-comparison.ts';
import { esc, messageBesideComparison, pretty, rowMessage } from './html-text.ts';
import { latencyOf, type Latency } from './statistics.ts';

export function toHtml(report: RunReport): string {
  const { passed, failed, skipped } = report.summary;
  const total = Math.max(1, passed + failed + skipped);
  const pct = (n: number) => `${((100 * n) / total).toFixed(2)}%`;
  const suites = report.suites ?? [];
  const durations = numbers(report.metrics?.durationsMs);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>credprov: ${esc(report.tool.command)}</title>
<style>${CSS}</style></head>
<body>
<header><h1>credprov report</h1><p class="cmd"><code>${esc(report.tool.command)}</code> · ${esc(report.startedAt)} · ${(report.durationMs / 1000).toFixed(1)} s · credprov ${esc(report.tool.version)}</p>
<div class="bar" role="img" aria-label="${passed} passed, ${failed} failed, ${skipped} skipped">
<span class="passed" style="width:${pct(passed)}"></span><span class="failed" style="width:${pct(failed)}"></span><span class="skipped" style="width:${pct(skipped)}"></span></div>
<p id="summary"><b class="passed">${passed} passed</b> · <b class="failed">${failed} failed</b> · <b class="skipped">${skipped} skipped</b></p></header>
<main>
<nav class="filters">
${(['passed', 'failed', 'skipped'] as const).map((s) => `<label><input type="checkbox" data-status="${s}" checked> ${s}</label>`).join('\n')}
<input type="search" id="q" placeholder="filter by id, title or message" aria-label="filter">
<span id="shown"></span></nav>
${suites.length ? suiteTable(report) : ''}
<table id="checks"><colgroup><col class="status"><col class="level">${suites.length ? '<col class="suite">' : ''}<col class="check"><col></colgroup>
<thead><tr><th>status</th><th>level</th>${suites.length ? '<th>suite</th>' : ''}<th>check</th><th>message</th></tr></thead>
<tbody>${failedFirst(report.checks)
    .map((c, i) => row(c, i, suites.length > 0))
    .join('\n')}</tbody></table>
${grids(report)}
${matrix(report)}
${durations.length ? histogram(durations, latencyIn(report.metrics?.latencyMs)) : ''}
<details><summary>subject and metrics</summary><pre>${esc(pretty({ subject: report.subject, metrics: report.metrics }))}</pre></details>
</main>
<script>${SCRIPT}</script>
</body></html>
`;
}

function row(c: CheckResult, i: number, withSuite: boolean): string {
  const message = messageBesideComparison(c);
  const short = rowMessage(message);
  // judge() keeps the comparison as evidence too; the table below shows it, report.json keeps it.
  const shown = c.evidence.filter((e) => !(c.comparison && 'data' in e && isDeepStrictEqual(e.data, c.comparison)));
  const detail = [
    short === message ? '' : `<p class="message">${esc(message)}</p>`,
    `<p class="source">${esc(c.level)} · ${esc(c.source)}</p>`,
    c.comparison ? comparisonHtml(c.comparison) : '',
    ...shown.map(evidence),
  ].join('\n');
  const summary =
    c.comparison && shown.length === 0
      ? 'prediction and observation'
      : `${c.comparison ? 'prediction and observation, ' : ''}evidence (${shown.length})`;
  return `<tr id="check-${esc(c.id)}" class="check ${c.status}" data-status="${c.status}" data-text="${esc(`${c.id} ${c.title} ${c.message} ${c.suite ?? ''}`.toLowerCase())}">
<td><span class="badge ${c.status}">${c.status.toUpperCase()}</span>${c.cause === 'harness' ? ' <span class="badge harness">harness</span>' : ''}</td><td>${c.level}</td>${withSuite ? `<td>${esc(c.suite ?? '')}</td>` : ''}
<td><b>${esc(c.id)}</b><br><span class="title">${esc(c.title)}</span></td>
<td><p class="oneline">${esc(short)}</p><details id="ev-${i}"><summary>${summary}</summary>${detail}</details></td></tr>`;
}

function evidence(e: Evidence): string {
  const body = 'text' in e ? e.text : pretty(e.data);
  return `<details class="evidence ${e.kind}"><summary>${esc(e.kind)}: ${esc(e.label)}${'file' in e && e.file ? ` <code>${esc(e.file)}</code>` : ''}</summary><pre>${esc(body.length > 200_000 ? `${body.slice(0, 200_000)}\n… (cut at 200000 characters)` : body)}</pre></details>`;
}

function suiteTable(report: RunReport): string {
  const rows = (report.suites ?? []).map((s) => {
    const cs = report.checks.filter((c) => c.suite === s.name);
    const n = (st: string) => cs.filter((c) => c.status === st).length;
    return `<tr><td><b>${esc(s.name)}</b><br><span class="title">${esc(s.summary)}</span></td><td class="num">${n('passed')}</td><td class="num">${n('failed')}</td><td class="num">${n('skipped')}</td><td class="num">${(s.durationMs / 1000).toFixed(1)} s</td></tr>`;
  });
  return `<table id="suites"><thead><tr><th>suite</th><th>passed</th><th>failed</th><th>skipped</th><th>wall time</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The suites' two-way tables (behaviour × client): each cell links to its check's row and evidence. */
function grids(report: RunReport): string {
  return gridsOf(report.checks)
    .map((g) => {
      const head = `<tr><th></th>${g.columns.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>`;
      const body = g.rows
        .map(
          (r) =>
            `<tr><th>${esc(r)}</th>${g.columns
              .map((col) => {
                const c = g.cells[r]?.[col];
                return c
                  ? `<td class="${esc(c.status)}" title="${esc(c.message)}"><a href="#check-${esc(c.checkId)}">${esc(c.status.toUpperCase())}</a> ${esc(c.text)}</td>`
                  : '<td>–</td>';
              })
              .join('')}</tr>`,
        )
        .join('');
      return `<h2>${esc(g.title)}</h2><table class="grid">${head}${body}</table>`;
    })
    .join('\n');
}

/** The qualification matrix (suite × version), when the report carries one (credprov qualify). */
function matrix(report: RunReport): string {
  const m = report.metrics?.matrix as
    | {
        versions?: string[];
        rows?: Array<{
          suite: string;
          cells: Record<string, { status: string; shouldFailed?: number; reason?: string }>;
        }>;
      }
    | undefined;
  if (!m?.versions || !m.rows) return '';
  const head = `<tr><th>suite</th>${m.versions.map((v) => `<th>${esc(v)}</th>`).join('')}</tr>`;
  const body = m.rows
    .map(
      (r) =>
        `<tr><td>${esc(r.suite)}</td>${m
          .versions!.map((v) => {
            const cell = r.cells[v];
            return cell
              ? `<td class="${esc(cell.status)}" title="${esc(cell.reason ?? '')}">${esc(cell.status)}${cell.shouldFailed ? ` (${cell.shouldFailed} SHOULD failed)` : ''}${cell.reason ? `<br><small>${esc(cell.reason)}</small>` : ''}</td>`
              : '<td>–</td>';
          })
          .join('')}</tr>`,
    )
    .join('');
  return `<h2>Qualification matrix</h2><table id="matrix">${head}${body}</table>`;
}

/** Plugin latency (certify): an inline SVG histogram of the durations, and the p50/p95 report.json holds (latencyOf's). */
export function histogram(ms: number[], stated: Latency = latencyOf(ms)): string {
  const bins = 20;
  const max = Math.max(...ms);
  const min = Math.min(...ms);
  const width = (max - min) / bins || 1;
  const counts = new Array<number>(bins).fill(0);
  for (const v of ms) counts[Math.min(bins - 1, Math.floor((v - min) / width))]!++;
  const top = Math.max(...counts);
  const bars = counts
    .map((n, i) => {
      const h = (140 * n) / top;
      return `<rect x="${40 + i * 26}" y="${160 - h}" width="22" height="${h}"><title>${(min + i * width).toFixed(1)}–${(min + (i + 1) * width).toFixed(1)} ms: ${n}</title></rect>`;
    })
    .join('');
  const f = (v: number | undefined) => (v ?? 0).toFixed(1);
  return `<h2>Plugin latency</h2><p>${stated.count} invocations · p50 ${f(stated.p50Ms)} ms · p95 ${f(stated.p95Ms)} ms · max ${f(stated.maxMs)} ms</p>
<svg id="latency" viewBox="0 0 580 190" width="580" height="190" role="img" aria-label="latency histogram">${bars}
<text x="40" y="180">${min.toFixed(1)} ms</text><text x="540" y="180" text-anchor="end">${max.toFixed(1)} ms</text><text x="4" y="24">${top}</text></svg>`;
}

/** metrics.latencyMs when it is latencyOf's shape; undefined otherwise (the histogram computes it then). */
function latencyIn(v: unknown): Latency | undefined {
  const l = v as Latency | undefined;
  return l && typeof l === 'object' && typeof l.count === 'number' && typeof l.p50Ms === 'number' ? l : undefined;
}

function numbers(v: unknown): number[] {
  return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number' && Number.isFinite(x)) : [];
}

// Every text wraps anywhere it must (image references, tokens and JSON have no
// spaces), and the checks table has a fixed layout: nothing widens the page.
const CSS = `body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fafbfc;overflow-wrap:anywhere}
header,main{padding:12px 24px}header{background:#fff;border-bottom:1px solid #d0d7de}h1{margin:0 0 4px;font-size:20px}
.cmd{color:#57606a;margin:0 0 8px}.bar{display:flex;height:14px;border-radius:7px;overflow:hidden;background:#eaeef2;max-width:900px}
.bar span{display:block;height:100%}.bar .passed,.badge.passed{background:#1a7f37}.bar .failed,.badge.failed{background:#cf222e}.bar .skipped,.badge.skipped{background:#9a6700}
b.passed,.cmp span.passed{color:#1a7f37}b.failed{color:#cf222e}b.skipped{color:#9a6700}.badge{color:#fff;border-radius:4px;padding:1px 6px;font-size:12px;font-weight:600}.badge.harness{background:#6e7781}
table{border-collapse:collapse;width:100%;margin:12px 0;background:#fff}th,td{border:1px solid #d0d7de;padding:6px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}thead th{overflow-wrap:normal}td.num{white-space:nowrap}.title{color:#57606a}pre{white-space:pre-wrap;max-height:420px;overflow:auto;background:#f6f8fa;padding:8px;margin:4px 0}
#checks{table-layout:fixed}col.status{width:96px}col.level{width:80px}col.suite{width:140px}col.check{width:22%}
.oneline{margin:0 0 4px}td:has(>details[open]>.message)>.oneline{display:none}.message{margin:8px 0;padding:6px 8px;background:#f6f8fa;border-left:3px solid #d0d7de}
.comparison{margin:8px 0}.verdict,.model{margin:4px 0}.cmp{table-layout:fixed;margin:4px 0}.cmp col.step{width:30%}.cmp col.agree{width:96px}
.cmp th,.cmp td{padding:4px 6px}.cmp th[scope=row]{font-weight:600}.cmp tr.differs>td{background:#ffebe9}.same-steps>summary{margin:4px 0}
ul.v,ol.v{margin:0;padding:0}ul.v{list-style:none}ol.v{padding-left:18px}li>ul.v,li>ol.v{padding-left:14px}.k{color:#57606a}
.because{margin:4px 0 8px;color:#424a53}ul.because{padding-left:20px}.absent{color:#6e7781;font-style:italic}
.filters{display:flex;gap:14px;align-items:center;flex-wrap:wrap}#q{flex:1;min-width:220px;padding:4px 8px}.source{color:#57606a}
td.passed{background:#dafbe1}td.failed{background:#ffebe9}td.skipped{background:#fff8c5}tr.hidden{display:none}#latency rect{fill:#0969da}`;

// Filtering: status checkboxes and a text box; the count of shown checks updates live.
const SCRIPT = `(function(){
var rows=[].slice.call(document.querySelectorAll('#checks tr.check'));
var boxes=[].slice.call(document.querySelectorAll('input[data-status]'));
var q=document.getElementById('q');var shown=document.getElementById('shown');
function apply(){var on={};boxes.forEach(function(b){on[b.dataset.status]=b.checked});var t=q.value.trim().toLowerCase();var n=0;
rows.forEach(function(r){var ok=on[r.dataset.status]&&(!t||r.dataset.text.indexOf(t)>=0);r.classList.toggle('hidden',!ok);if(ok)n++});
shown.textContent=n+' of '+rows.length+' checks shown';}
boxes.forEach(function(b){b.addEventListener('change',apply)});q.addEventListener('input',apply);
if(location.hash==='#failed'){boxes.forEach(function(b){b.checked=b.dataset.status==='failed'})}apply();})();`;
