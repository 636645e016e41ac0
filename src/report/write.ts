// Writes every report format for a run (JSON, JUnit, Markdown, HTML). Redaction happens here, once, before
// any writer sees the data.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redactor } from '../core/redact.ts';
import type { RunReport } from './model.ts';
import { toJson } from './json.ts';
import { toJunit } from './junit.ts';
import { toMarkdown } from './markdown.ts';
import { toHtml } from './html.ts';

export interface WrittenReport {
  dir: string;
  files: string[];
}

export async function writeReports(report: RunReport, dir: string, redactor: Redactor): Promise<WrittenReport> {
  const safe = redactor.value(report);
  await mkdir(dir, { recursive: true });
  const files: Array<[string, string]> = [
    ['report.json', toJson(safe)],
    ['junit.xml', toJunit(safe)],
    ['report.md', toMarkdown(safe)],
    ['report.html', toHtml(safe)],
  ];
  await Promise.all(files.map(([name, body]) => writeFile(join(dir, name), body)));
  return { dir, files: files.map(([n]) => join(dir, n)) };
}
