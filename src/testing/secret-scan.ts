// The vendor suites' "no secret reaches any artefact" tests: a redactor that
// remembers every secret a suite registers (the labs register every password,
// client secret, key and token they issue), and a scan of every file a run
// wrote for any of them, or for anything shaped like a credential.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redactor } from '../core/redact.ts';

/** A JWT (header.payload.signature, base64url): no artefact may hold one. */
export const JWT = /eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\./;

/** Every secret handed to it, kept for the scan (and redacted as usual). */
export class RecordingRedactor extends Redactor {
  readonly seen: string[] = [];
  override add(...secrets: Array<string | undefined>): this {
    for (const s of secrets) if (s) this.seen.push(s);
    return super.add(...secrets);
  }
}

export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/**
 * Files under `dir` holding any of `secrets` (8 characters or more: shorter ones would
 * match by chance) or matching any of `shapes`, each named with what it holds and where
 * (the text around it, every secret and shape in it masked), never the secret itself.
 */
export async function leaks(dir: string, secrets: string[], shapes: RegExp[] = [JWT]): Promise<string[]> {
  const found: string[] = [];
  for (const f of await filesUnder(dir)) {
    const text = await readFile(f, 'utf8');
    for (const shape of shapes) if (shape.test(text)) found.push(`${f}: matches ${shape.source.slice(0, 30)}`);
    secrets.forEach((s, i) => {
      if (s.length >= 8 && text.includes(s)) found.push(`${f}: secret #${i} in ${around(text, i, secrets, shapes)}`);
    });
  }
  return found;
}

const CONTEXT = 40;

/** The text around secret #i, one line, every secret and shape masked first (so the cut never shows part of one). */
function around(text: string, i: number, secrets: string[], shapes: RegExp[]): string {
  let masked = text;
  secrets.forEach((s, j) => {
    if (s.length >= 8) masked = masked.replaceAll(s, `<secret #${j}>`);
  });
  for (const shape of shapes) masked = masked.replace(new RegExp(shape.source, 'g'), '<shape>');
  const marker = `<secret #${i}>`;
  const at = masked.indexOf(marker);
  return JSON.stringify(masked.slice(Math.max(0, at - CONTEXT), at + marker.length + CONTEXT));
}
