// kubectl's output as the kubectl probe reads it: the -v=6 response lines and the error text.
import { describe, expect, test } from '@jest/globals';
import { shellQuote } from '../core/shell-script.ts';
import { kubectlErrorText, parseKubectlStatuses } from './kubectl.ts';

// Captured from kubectl v1.37.1 against credprov's scripted endpoint.
const OK = `I1124 21:18:33.477360   20307 loader.go:408] Config loaded from file:  /tmp/kc.json
I1124 21:18:33.477737   20307 envvar.go:195] "Feature gate default state" feature="WatchListClient" enabled=true
I1124 21:18:34.073779   20307 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:38329/version" status="200 OK" milliseconds=595
`;
const REFUSED = `I1124 21:18:48.601235   24211 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:38329/version" status="" milliseconds=734
fake-exec-plugin: a line the plugin wrote on stderr
I1124 21:18:48.601390   24211 helpers.go:265] Connection error: Get https://127.0.0.1:38329/version: getting credentials: exec plugin didn't return a status field
Unable to connect to the server: getting credentials: exec plugin didn't return a status field
`;

describe('the kubectl probe reads kubectl -v=6', () => {
  test('every response status, in order; a request that never left has none', () => {
    expect(parseKubectlStatuses(OK)).toEqual([200]);
    expect(parseKubectlStatuses(REFUSED)).toEqual([]);
    expect(parseKubectlStatuses(`${OK}${OK.replace('200 OK', '401 Unauthorized')}`)).toEqual([200, 401]);
  });

  test("the error is kubectl's last error line on, without klog lines or the plugin's stderr before it", () => {
    expect(kubectlErrorText(REFUSED)).toBe(
      "Unable to connect to the server: getting credentials: exec plugin didn't return a status field",
    );
    expect(kubectlErrorText('error: You must be logged in to the server (Unauthorized)\r\n')).toBe(
      'error: You must be logged in to the server (Unauthorized)',
    );
    expect(kubectlErrorText('something else went wrong\n')).toBe('something else went wrong');
  });

  test('arguments for script(1) are quoted for sh -c', () => {
    expect(shellQuote('/usr/bin/kubectl')).toBe('/usr/bin/kubectl');
    expect(shellQuote("/tmp/it's here")).toBe(`'/tmp/it'\\''s here'`);
    expect(shellQuote('/version?a=1&b=2')).toBe(`'/version?a=1&b=2'`);
  });
});
