import { describe, expect, test } from '@jest/globals';
import { STATIC_CLIENTS } from '../../src/model/exec-static-credentials.ts';
import { differenceFromClientGo, predictRow } from './predict.ts';
import { rowsOf } from './plan.ts';

const table = (client: (typeof STATIC_CLIENTS)[number]) =>
  rowsOf(client).map((r) => {
    const v = predictRow(client, r).value;
    return `${r.label}: ${v.pluginRuns ? 'runs' : 'skipped'}/${v.seenAs}`;
  });

describe('exec-static-credentials predictions', () => {
  test('kubectl and client-go: every static credential wins, the plugin never runs', () => {
    const rows = [
      'exec only: runs/plugin',
      'token beside exec: skipped/static',
      'tokenFile beside exec: skipped/file',
      'tokenFile ending in a newline beside exec: skipped/file',
      'username and password beside exec: skipped/unauthenticated',
    ];
    expect(table('client-go')).toEqual(rows);
    expect(table('kubectl')).toEqual([...rows, 'kubectl --token beside exec: skipped/cli']);
  });

  test('client-node: runs the plugin always; token overwrites it, tokenFile and basic lose (finding 19)', () => {
    expect(table('client-node')).toEqual([
      'exec only: runs/plugin',
      'token beside exec: runs/static',
      'tokenFile beside exec: runs/plugin',
      'tokenFile ending in a newline beside exec: runs/plugin',
      'username and password beside exec: runs/plugin',
    ]);
  });

  test('python: token and tokenFile win, an untrimmed file sends nothing, basic loses to exec (finding 20)', () => {
    expect(table('python')).toEqual([
      'exec only: runs/plugin',
      'token beside exec: skipped/static',
      'tokenFile beside exec: skipped/file',
      'tokenFile ending in a newline beside exec: skipped/no request',
      'username and password beside exec: runs/plugin',
    ]);
    const newline = rowsOf('python').find((r) => r.tokenFileNewline)!;
    expect(predictRow('python', newline).clientError).toMatch(/^ValueError: Invalid header value/);
  });

  test('the SHOULD checks name each difference from client-go, and none for the reference clients', () => {
    const diffs = (c: (typeof STATIC_CLIENTS)[number]) =>
      rowsOf(c)
        .map((r) => differenceFromClientGo(c, r))
        .filter(Boolean);
    expect(diffs('kubectl')).toEqual([]);
    expect(diffs('client-go')).toEqual([]);
    expect(diffs('client-node')).toHaveLength(4);
    expect(diffs('python')).toEqual([
      'tokenFile ending in a newline beside exec: python does not run the plugin and sends no request, where client-go does not run the plugin and is authenticated with the file credential',
      'username and password beside exec: python runs the plugin and is authenticated with the plugin credential, where client-go does not run the plugin and is authenticated as nobody',
    ]);
  });
});
