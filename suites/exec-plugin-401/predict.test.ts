// The suite's plans against its own models, without a cluster: every
// behaviour's prediction must survive slow requests (the real steps start
// later than planned on a loaded machine), or the live suite would report
// slipped schedules instead of verdicts.
import { describe, expect, test } from '@jest/globals';
import { EXEC_CLIENT_NAMES } from '../../src/run/kit.ts';
import type { ClientSetting } from '../../src/model/exec-info.ts';
import { BEHAVIOURS } from './plan.ts';
import { plannedTimes, predictSession } from './predict.ts';

const setting = (s: (typeof BEHAVIOURS)[number]['sessions'][number]): ClientSetting => ({
  user: s.user,
  cluster: { raw: { server: 'https://127.0.0.1:6443' }, server: 'https://127.0.0.1:6443', caData: 'Q0E=' },
  terminal: s.terminal,
});

describe('exec-plugin-401 plans', () => {
  for (const b of BEHAVIOURS) {
    test(`${b.id}: every client's prediction is the same when each request takes up to 2.5s longer than planned`, () => {
      for (const client of EXEC_CLIENT_NAMES) {
        for (const s of b.sessions) {
          const planned = plannedTimes(s);
          const base = predictSession(client, s, setting(s), planned).view;
          for (const slow of [400, 1200, 2500]) {
            // A step starts `afterMs` after the previous one ENDS: each request before it pushes it later.
            let late = 0;
            const times = planned.map((t, i) => {
              const at = t + late;
              if (s.steps[i]!.do === 'request') late += slow;
              return at;
            });
            expect({ client, session: s.label, slow, view: predictSession(client, s, setting(s), times).view }).toEqual(
              { client, session: s.label, slow, view: base },
            );
          }
        }
      }
    });
  }

  test('the clients differ where the sources say they do (a sample of the table the suite draws)', () => {
    const row = (key: string) =>
      Object.fromEntries(
        EXEC_CLIENT_NAMES.map((c) => {
          const b = BEHAVIOURS.find((x) => x.key === key)!;
          const s = b.sessions[0]!;
          return [c, predictSession(c, s, setting(s), plannedTimes(s)).view.requests.join(' ')];
        }),
      );
    expect(row('reexec-401')).toEqual({
      kubectl: '401/2 200/1 200/1',
      'client-go': '401/2 200/0 200/0',
      'client-node': '401/1 401/0 401/0',
      python: '401/1 401/0 401/0',
      // fabric8 runs the plugin on the 401 and sends the request again; kube-rs builds its client with 3 runs.
      fabric8: '200/2 200/0 200/0',
      'kube-rs': '401/3 401/0 401/0',
      'kubernetes-asyncio': '401/1 401/0 401/0',
    });
    expect(row('revoked')).toEqual({
      kubectl: '200/1 200/1 200/1 200/1',
      'client-go': '200/1 200/0 401/1 200/0',
      'client-node': '200/1 200/0 401/0 401/0',
      python: '200/1 200/0 401/0 401/0',
      fabric8: '200/1 200/0 200/1 200/0',
      'kube-rs': '200/3 200/0 401/0 401/0',
      'kubernetes-asyncio': '200/1 200/0 401/0 401/0',
    });
    expect(row('client-cert')).toEqual({
      kubectl: '200/1 200/1 200/1 200/1',
      'client-go': '200/1 200/0 200/1 200/0',
      'client-node': '200/1 200/0 200/1 200/0',
      python: '200/1 200/0 401/0 401/0',
      // fabric8 reads no ECDSA key without BouncyCastle: building its client fails on every request.
      fabric8: 'error/1 error/1 error/1 error/1',
      'kube-rs': '200/3 200/0 401/0 401/0',
      'kubernetes-asyncio': '200/1 200/0 401/0 401/0',
    });
    // kube-rs refreshes a token 60 s before its expiry: one 6 s ahead is fetched again for every request.
    expect(row('cache-expiry')['kube-rs']).toBe('200/4 200/1 200/1 200/1');
    // kube-rs: IfAvailable is interactive without a terminal; the scripted plugin then prompts on the probe's stdin.
    const interactive = BEHAVIOURS.find((x) => x.key === 'interactive')!;
    expect(
      interactive.sessions.map((s) =>
        predictSession('kube-rs', s, setting(s), plannedTimes(s)).view.requests.join(' '),
      ),
    ).toEqual(['200/3', '200/3', 'error/0', '200/3', 'error/0', '200/3']);
  });
});
