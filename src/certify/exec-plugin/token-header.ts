// EP-TOKEN-HEADER-VALUE: whether every client credprov models can send the
// plugin's token as `Authorization: Bearer <token>`, judged by each client's
// own header rule (src/clients/header-rules.ts), whatever clients this
// machine has. The message names the character as an escape and where it is,
// never the token: the token is a secret.
import { apiServerProblem, headerProblem, type HeaderProblem } from '../../clients/header-rules.ts';
import { CLIENT_NAMES, type ClientName } from '../../clients/probe.ts';
import { KUBE_APISERVER_MAX_HEADER_BYTES } from '../../clients/scripted-endpoint.ts';
import { fail, pass, type Outcome } from '../../report/checks.ts';
import type { Evidence } from '../../report/model.ts';

const list = (names: readonly string[]) =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

/** The verdict on a string token; `evidence` is what the run showed (redacted by the report). */
export function judgeTokenHeader(token: string, evidence: Evidence[]): Outcome {
  const problems = CLIENT_NAMES.map((c) => [c, headerProblem(c, token)] as const).filter(
    (p): p is readonly [ClientName, HeaderProblem] => p[1] !== undefined,
  );
  const bytes = Buffer.byteLength(token);
  if (bytes > KUBE_APISERVER_MAX_HEADER_BYTES)
    return fail(
      `status.token is ${bytes} bytes: every client sends it, but kube-apiserver takes at most ${KUBE_APISERVER_MAX_HEADER_BYTES} bytes of request headers (MaxHeaderBytes) and answers 431; issue a smaller token`,
      evidence,
    );
  const atServer = apiServerProblem(token);
  if (problems.length === 0 && !atServer) {
    const nonAscii = /[^\u0000-\u007f]/.test(token);
    return pass(
      `every client can send the ${bytes}-byte token as an Authorization header value${nonAscii ? ' (it holds characters outside ASCII: Go sends them as UTF-8, client-node and Python as Latin-1, so servers see different bytes; RFC 6750 tokens are ASCII)' : ''}`,
    );
  }
  // One clause per offending character: clients may stop at different ones (€ for client-node, a newline for Go).
  const byChar = new Map<string, { clients: ClientName[]; server: ClientName[] }>();
  for (const [client, p] of problems) {
    const key = `${p.char} at offset ${p.offset}`;
    const entry = byChar.get(key) ?? { clients: [], server: [] };
    (p.refusal === 'client-refuses' ? entry.clients : entry.server).push(client);
    byChar.set(key, entry);
  }
  if (atServer && problems.length === 0)
    return fail(
      `status.token holds ${atServer.char} at offset ${atServer.offset}: every client sends it, but kube-apiserver splits "Bearer <token>" on spaces, so it reads another token (or none); a bearer token has no spaces (RFC 6750 b64token)`,
      [...evidence, { kind: 'data', label: 'kube-apiserver bearer token parsing', data: atServer }],
    );
  const clauses = [...byChar].map(([where, e]) =>
    [
      e.clients.length ? `${where}: ${list(e.clients)} refuse${e.clients.length === 1 ? 's' : ''} to send it` : '',
      e.server.length
        ? `${where}: ${list(e.server)} send${e.server.length === 1 ? 's' : ''} it and the API server refuses the request (400)`
        : '',
    ]
      .filter(Boolean)
      .join('; '),
  );
  return fail(
    `status.token is not a valid HTTP header value (${token.length} characters): ${clauses.join('; ')}; write the token without control characters and within Latin-1, best in visible ASCII (RFC 6750 b64token)`,
    [
      ...evidence,
      {
        kind: 'data',
        label: "each client's header rule (src/clients/header-rules.ts)",
        data: problems.map(([client, p]) => ({ client, ...p })),
      },
    ],
  );
}
