// Scanning raw text for a JSON object without parsing it: plugin output may be
// cut short or surrounded by log noise, so the parser cannot be asked first.

/** The index just past the `{…}` that opens at `start` (strings and escapes honoured), or undefined when it never closes. */
export function endOfFirstValue(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return undefined;
}
