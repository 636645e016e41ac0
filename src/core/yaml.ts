// Turning a parsed YAML document into plain values without letting a hostile
// file expand: the yaml library refuses documents whose aliases would expand
// past maxAliasCount ("billion laughs") with a bare ReferenceError; here that
// becomes an InputFileError naming the file (exit 2).
import type { Document } from 'yaml';
import { InputFileError } from './errors.ts';

/** The yaml library's default; enough for any real config, far too few for an alias bomb. */
const MAX_ALIAS_COUNT = 100;

export function yamlToJs(doc: Document, file: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    if (e instanceof Error && /alias/i.test(e.message)) {
      throw new InputFileError(`${file}: too many YAML aliases to expand (a "billion laughs" document?)`, {
        file,
        hint: 'write the values out instead of repeating anchors (&name / *name)',
      });
    }
    throw e;
  }
}
