// Each client's rule for a bearer token in a header (header-rules.ts), on the
// characters the rules disagree about. The rules are re-checked against the
// real clients by decoding.test.ts (the token-* rows); here their edges.
import { describe, expect, test } from '@jest/globals';
import { apiServerProblem, headerProblem, tokenSpellings } from './header-rules.ts';
import { CLIENT_NAMES, type ClientName } from './probe.ts';

/** Per client: 'ok', or the refusal and the character. */
const verdicts = (token: string) =>
  Object.fromEntries(
    CLIENT_NAMES.map((c: ClientName) => {
      const p = headerProblem(c, token);
      return [c, p ? `${p.refusal} ${p.char}@${p.offset}` : 'ok'];
    }),
  );

describe('header rules', () => {
  test('a trailing newline: Go and Python refuse, fetch trims it', () => {
    expect(verdicts('tok\n')).toEqual({
      kubectl: 'client-refuses U+000A@3',
      'client-go': 'client-refuses U+000A@3',
      'client-node': 'ok',
      python: 'client-refuses U+000A@3',
    });
  });

  test('a newline inside: every client refuses', () => {
    expect(Object.values(verdicts('to\nk')).every((v) => v.startsWith('client-refuses U+000A@2'))).toBe(true);
  });

  test('other control characters (SOH, DEL, NUL): Python sends them, the server refuses', () => {
    for (const [token, char] of [
      ['to\u0001k', 'U+0001'],
      ['to\u007fk', 'U+007F'],
      ['to\u0000k', 'U+0000'],
    ] as const) {
      expect(verdicts(token)).toEqual({
        kubectl: `client-refuses ${char}@2`,
        'client-go': `client-refuses ${char}@2`,
        'client-node': `client-refuses ${char}@2`,
        python: `server-refuses ${char}@2`,
      });
    }
  });

  test('outside Latin-1 (€, CJK): client-node and Python refuse, Go sends UTF-8', () => {
    for (const token of ['tok\u20ac', 'tok\u4e2d']) {
      const v = verdicts(token);
      expect([v.kubectl, v['client-go']]).toEqual(['ok', 'ok']);
      expect(v['client-node']).toMatch(/^client-refuses U\+(20AC|4E2D)@3$/);
      expect(v.python).toMatch(/^client-refuses U\+(20AC|4E2D)@3$/);
    }
  });

  test('Latin-1 beyond ASCII, a tab, a trailing space: every client sends them', () => {
    for (const token of ['tok\u00e9', 'to\tk', 'tok '])
      expect(new Set(Object.values(verdicts(token)))).toEqual(new Set(['ok']));
  });

  test('Python lets a folded line (CRLF then a space) through to the server', () => {
    expect(headerProblem('python', 'to\r\n k')?.refusal).toBe('server-refuses');
  });
});

describe('kube-apiserver reading the token', () => {
  test('a space inside or in front of the token, or a leading tab, makes it another token; a trailing one does not', () => {
    expect(apiServerProblem(' tok')?.offset).toBe(0);
    expect(apiServerProblem('to k')?.offset).toBe(2);
    expect(apiServerProblem('\ttok')?.char).toBe('U+0009');
    expect(apiServerProblem('tok  ')).toBeUndefined();
    expect(apiServerProblem('to\tk')).toBeUndefined();
  });
});

test('the spellings of a token in client errors: as is, trimmed, JSON-escaped, Python repr', () => {
  expect(tokenSpellings("ab'c\u007f\n")).toEqual(["ab'c\u007f\n", "ab'c\u007f", "ab'c\u007f\\n", "ab\\'c\\x7f\\n"]);
});
