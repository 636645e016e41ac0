// The JSON-lines protocol of the long-lived probes, driven by a scripted probe
// process (node), so each kind of answer is seen exactly once.
import { describe, expect, it } from '@jest/globals';
import { REDACTED, Redactor } from '../core/redact.ts';
import { startLineProcess } from './line-session.ts';

const SECRET = 'tok-line-session-secret-0123';

// Answers each request line with the next scripted answer.
const SCRIPTED = `
const answers = JSON.parse(process.argv[1]);
console.log(JSON.stringify({ ready: 'scripted' }));
let i = 0;
require('node:readline').createInterface({ input: process.stdin }).on('line', () => console.log(JSON.stringify(answers[i++] ?? { error: 'no more answers' })));
`;

async function session(answers: unknown[]) {
  return startLineProcess({
    client: 'client-go',
    file: process.execPath,
    args: ['-e', SCRIPTED, JSON.stringify(answers)],
    env: process.env,
    timeoutMs: 10_000,
    redactor: new Redactor().add(SECRET),
  });
}

describe('line session', () => {
  it('passes on status, error and the transport errors a client retried past, with secrets redacted', async () => {
    const s = await session([
      { status: 200 },
      {
        status: 200,
        transportErrors: [`write tcp 127.0.0.1:1->127.0.0.1:2: use of closed network connection (${SECRET})`],
      },
      { error: `getting credentials: exec: ${SECRET}` },
      { status: 401, transportErrors: [] },
    ]);
    try {
      const answers = [await s.request('/a'), await s.request('/b'), await s.request('/c'), await s.request('/d')];
      expect(answers.map(({ ms: _ms, ...a }) => a)).toEqual([
        { seq: 1, status: 200 },
        {
          seq: 2,
          status: 200,
          transportErrors: [`write tcp 127.0.0.1:1->127.0.0.1:2: use of closed network connection (${REDACTED})`],
        },
        { seq: 3, error: `getting credentials: exec: ${REDACTED}` },
        { seq: 4, status: 401 },
      ]);
    } finally {
      await s.close();
    }
  });
});
