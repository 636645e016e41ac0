// Every relative link in README.md and docs/**/*.md must lead somewhere: to a
// file or folder of the repository and, when it carries a #fragment, to a
// heading of the Markdown file it names (GitHub's heading anchors).
// External links (https:, mailto:, ...) are not fetched.
import { describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

interface BrokenLink {
  file: string;
  line: number;
  link: string;
  why: string;
}

/** Markdown files whose links are checked, relative to the root: README.md and docs/**. */
function docFiles(root: string): string[] {
  const files = existsSync(join(root, 'README.md')) ? ['README.md'] : [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk('docs');
  return files;
}

const CODE_SPAN = /(`+)(?:(?!\1)[\s\S])*?\1/g;

/** The lines outside fenced code blocks: as written, and with code spans blanked (links there are not links). */
function proseLines(text: string): { line: number; raw: string; prose: string }[] {
  const out: { line: number; raw: string; prose: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, i) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(raw)?.[1];
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && raw.trim() === marker) fence = undefined;
      return;
    }
    if (marker) {
      fence = marker;
      return;
    }
    out.push({ line: i + 1, raw, prose: raw.replace(CODE_SPAN, (m) => ' '.repeat(m.length)) });
  });
  return out;
}

/** GitHub's anchor for a heading: its rendered text, lower-cased, punctuation dropped, each space a hyphen. */
function githubSlug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .split(/(`[^`]*`)/)
    .map((part) =>
      part.startsWith('`') && part.length > 1
        ? part.slice(1, -1) // code spans: their content, as written
        : part
            .replace(/<[^>]+>/g, '') // inline HTML tags
            // emphasis; an underscore inside a word (KUBERNETES_EXEC_INFO) is none, as in GitHub's Markdown
            .replace(/(\*\*|\*)(.+?)\1/g, '$2')
            .replace(/(?<![\p{L}\p{N}])(__|_)(.+?)\1(?![\p{L}\p{N}])/gu, '$2'),
    )
    .join('');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown text's headings produce, with GitHub's -1, -2 … suffixes for repeats. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { raw } of proseLines(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(raw)?.[1];
    if (heading === undefined) continue;
    const base = githubSlug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The links of one line: inline links and images `[text](target "title")`, and reference definitions `[label]: target`. */
function linksOf(prose: string): string[] {
  const links = [...prose.matchAll(/\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+["'(][^)]*)?\)/g)].map((m) => m[1]!);
  const definition = /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(prose)?.[1];
  if (definition !== undefined) links.push(definition);
  return links.map((l) => l.replace(/^<(.*)>$/, '$1'));
}

/** Why a link written in the file `from` does not resolve, or undefined when it does. */
function problemWith(
  root: string,
  from: string,
  link: string,
  anchors: (file: string) => Set<string>,
): string | undefined {
  if (link === '') return 'the link is empty';
  if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('//')) return undefined; // external: https:, mailto:, …
  const hash = link.indexOf('#');
  const pathPart = decodeURIComponent(hash < 0 ? link : link.slice(0, hash));
  const fragment = hash < 0 ? undefined : decodeURIComponent(link.slice(hash + 1));
  if (pathPart.startsWith('/'))
    return 'an absolute path, which GitHub resolves against the site, not the repository; use a relative one';
  const target = pathPart === '' ? from : resolve(dirname(from), pathPart);
  const rel = relative(root, target);
  if (rel === '..' || rel.startsWith('../')) return `it leaves the repository (${rel})`;
  if (pathPart !== '' && !existsSync(target)) return `${rel} does not exist`;
  if (!fragment) return undefined;
  if (pathPart !== '' && statSync(target).isDirectory()) return `#${fragment} points into a folder (${rel})`;
  if (!target.endsWith('.md')) return undefined; // line anchors (#L10) in source files are GitHub's business
  if (!anchors(target).has(fragment)) return `${rel} has no heading whose anchor is #${fragment}`;
  return undefined;
}

/** The broken links of a Markdown text that lives at `file` (absolute), reported relative to root. */
function brokenLinksIn(root: string, file: string, text: string): BrokenLink[] {
  const cache = new Map<string, Set<string>>([[file, anchorsOf(text)]]);
  const anchors = (abs: string): Set<string> => {
    let set = cache.get(abs);
    if (!set) cache.set(abs, (set = anchorsOf(readFileSync(abs, 'utf8'))));
    return set;
  };
  const broken: BrokenLink[] = [];
  for (const { line, prose } of proseLines(text)) {
    for (const link of linksOf(prose)) {
      const why = problemWith(root, file, link, anchors);
      if (why) broken.push({ file: relative(root, file), line, link, why });
    }
  }
  return broken;
}

describe('links in README.md and docs/', () => {
  test('every relative link resolves to a file of the repository, and every #anchor to a heading', () => {
    const files = docFiles(ROOT);
    expect(files).toContain('README.md');
    const broken = files.flatMap((f) => brokenLinksIn(ROOT, join(ROOT, f), readFileSync(join(ROOT, f), 'utf8')));
    // One line per broken link: file:line: link: why.
    expect(broken.map((b) => `${b.file}:${b.line}: ${b.link}: ${b.why}`)).toEqual([]);
  });

  test('anchors are made as GitHub makes them: code spans, punctuation, repeats', () => {
    expect(githubSlug('Exit codes and `--json`')).toBe('exit-codes-and---json');
    expect(githubSlug("`explain --live`: the kubelet's own answer")).toBe('explain---live-the-kubelets-own-answer');
    expect(githubSlug('`matching` (9 checks, ~15 s)')).toBe('matching-9-checks-15-s');
    expect(githubSlug('What [the link](x.md) says, **bold**')).toBe('what-the-link-says-bold');
    expect(githubSlug('Who runs what')).toBe('who-runs-what');
    expect(githubSlug('fabric8 never sets KUBERNETES_EXEC_INFO, or `A_B_C`; _this_ is')).toBe(
      'fabric8-never-sets-kubernetes_exec_info-or-a_b_c-this-is',
    );
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n## A ##\n')]).toEqual(['a', 'a-1', 'a-2']);
  });

  test('a broken link is reported with its file, line, the link and why', () => {
    const at = join(ROOT, 'docs', 'example.md');
    const problems = (text: string): string[] =>
      brokenLinksIn(ROOT, at, text).map((b) => `${b.file}:${b.line}: ${b.link}: ${b.why}`);
    expect(problems('see [x](nope/missing.md) and `[not a link](a.md)`\n')).toEqual([
      'docs/example.md:1: nope/missing.md: docs/nope/missing.md does not exist',
    ]);
    expect(problems('[r](../package.json) [s](../README.md#no-such-heading)')).toEqual([
      'docs/example.md:1: ../README.md#no-such-heading: README.md has no heading whose anchor is #no-such-heading',
    ]);
    expect(
      problems('[a](/etc/passwd) [b](../../outside.md) [c](https://example.com/x) [d](#here) [e](#there)\n# Here\n'),
    ).toEqual([
      'docs/example.md:1: /etc/passwd: an absolute path, which GitHub resolves against the site, not the repository; use a relative one',
      'docs/example.md:1: ../../outside.md: it leaves the repository (../outside.md)',
      'docs/example.md:1: #there: docs/example.md has no heading whose anchor is #there',
    ]);
    expect(problems('```\n[x](missing.md)\n```\n[ok](<../package.json>)\n\n[ref]: ../missing-too.md\n')).toEqual([
      'docs/example.md:6: ../missing-too.md: missing-too.md does not exist',
    ]);
  });
});
