// What each client does with a row, from credprov's model
// (src/model/exec-static-credentials.ts staticBesideExec), said as the API
// server sees it: which of the case's identities it authenticated, or none.
// kube-apiserver has no basic-auth authenticator (removed in 1.19), so Basic
// reaches it as no credential at all: the request is anonymous (or 401).
// Pure.
import { staticBesideExec, type Sent, type StaticClient } from '../../src/model/exec-static-credentials.ts';
import type { Prediction } from '../../src/run/kit.ts';
import type { Identity, StaticRow } from './plan.ts';

/** Who the API server authenticated: one of the case's identities, nobody it knows, or no request reached it. */
export type SeenAs = Identity | 'unauthenticated' | 'no request';

export interface RowOutcome {
  pluginRuns: boolean;
  seenAs: SeenAs;
}

export const MODEL = 'static credentials beside exec (src/model/exec-static-credentials.ts staticBesideExec)';

const SEEN: Record<Sent, SeenAs> = {
  'plugin-token': 'plugin',
  'static-token': 'static',
  'file-token': 'file',
  'cli-token': 'cli',
  basic: 'unauthenticated',
  nothing: 'no request',
};

export function predictRow(client: StaticClient, row: StaticRow): Prediction<RowOutcome> & { clientError?: string } {
  const p = staticBesideExec({
    client,
    static: row.static,
    ...(row.tokenFileNewline ? { tokenFileNewline: true } : {}),
  });
  const basic = p.sent === 'basic' ? ' (Basic is no credential to kube-apiserver: it authenticates nobody)' : '';
  return {
    value: { pluginRuns: p.pluginRuns, seenAs: SEEN[p.sent] },
    model: MODEL,
    because: `${row.label}: ${p.because}${basic}`,
    ...(p.clientError ? { clientError: p.clientError } : {}),
  };
}

/** Where `client` (as predicted) differs from client-go, the reference: the SHOULD checks name each difference. */
export function differenceFromClientGo(client: StaticClient, row: StaticRow): string | undefined {
  if (client === 'kubectl' || client === 'client-go' || row.static === 'cliToken') return undefined;
  const mine = predictRow(client, row).value;
  const ref = predictRow('client-go', { ...row, tokenFileNewline: false }).value;
  if (mine.pluginRuns === ref.pluginRuns && mine.seenAs === ref.seenAs) return undefined;
  return `${row.label}: ${client} ${showOutcome(mine)}, where client-go ${showOutcome(ref)}`;
}

export const showOutcome = (o: RowOutcome): string =>
  `${o.pluginRuns ? 'runs the plugin' : 'does not run the plugin'} and ${
    o.seenAs === 'no request'
      ? 'sends no request'
      : o.seenAs === 'unauthenticated'
        ? 'is authenticated as nobody'
        : `is authenticated with the ${o.seenAs} credential`
  }`;
