// Rows of the client decoding table (decoding.ts) about status.token: its JSON
// type, its characters (each client's own header rule, header-rules.ts) and
// its size (what the API server takes). Found and re-checked like every row:
// decoding.test.ts runs each through every real client.
import {
  CLIENT_GO_WHY,
  goClients,
  NODE_EXEC,
  PY_LOAD,
  type ClientOutcome,
  type DecodingRow,
} from './decoding-model.ts';
import { KUBE_APISERVER_MAX_HEADER_BYTES } from './scripted-endpoint.ts';

const GO_HEADER = 'Go net/http Transport.roundTrip: httpguts.ValidHeaderFieldValue';
const NODE_HEADER =
  "undici fetch (client-node's IsomorphicFetchHttpLibrary): Headers (ByteString, trims HTTP whitespace, no NUL/CR/LF), then lib/core/request.js processHeader (headerCharRegex, from Node's _http_common checkInvalidHeaderChar)";
const PY_HEADER = `${PY_LOAD}: "Bearer %s" % status['token']; http.client putheader: .encode('latin-1'), _is_illegal_header_value`;
const GO_REFUSES_HEADER: ClientOutcome = {
  verdict: 'refuses',
  says: 'invalid header field value for "Authorization"',
  note: 'Go checks the header before sending: nothing leaves',
};

const PY_REFUSES_HEADER: ClientOutcome = {
  verdict: 'refuses',
  says: 'Invalid header value',
  note: 'a ValueError from http.client; nothing is sent',
};

/** Why, for each client, in the rows its header rule decides. */
const HEADER_RULES = { 'client-go': GO_HEADER, 'client-node': NODE_HEADER, python: PY_HEADER };

export const TOKEN_ROWS: readonly DecodingRow[] = [
  {
    trait: 'token-not-string',
    answer: 'status.token is not a string but a number (12345; also true, an object)',
    contractCheck: 'EP-CREDENTIAL-SHAPE',
    reproduce: { scenario: { tokenJson: 12345 } },
    clients: {
      ...goClients({
        verdict: 'refuses',
        says: 'into Go struct field ExecCredentialStatus.status.token of type string',
      }),
      'client-node': { verdict: 'accepts', note: 'sends "Bearer 12345": a template string stringifies it' },
      python: { verdict: 'accepts', note: 'sends "Bearer 12345": "Bearer %s" stringifies it' },
    },
    why: {
      'client-go': `${CLIENT_GO_WHY}: encoding/json into a string field`,
      'client-node': NODE_EXEC,
      python: PY_LOAD,
    },
  },
  {
    trait: 'token-falsy',
    answer: 'status.token is null (also false, 0), and there is no certificate',
    contractCheck: 'EP-CREDENTIAL-SHAPE',
    reproduce: { scenario: { tokenJson: null } },
    clients: {
      ...goClients({ verdict: 'refuses', says: "exec plugin didn't return a token or cert/key pair" }),
      'client-node': { verdict: 'sends-no-credential', note: 'silently: a null token is no token' },
      python: {
        verdict: 'accepts',
        note: 'sends "Bearer None" (\'token\' in status is true): a credential, but not one any server accepts',
      },
    },
    why: {
      'client-go': `${CLIENT_GO_WHY}: JSON null leaves the string empty`,
      'client-node': NODE_EXEC,
      python: PY_LOAD,
    },
  },
  {
    trait: 'token-empty-with-cert',
    answer: 'status.token is "" next to a client certificate and its key',
    contractCheck: 'EP-CREDENTIAL-SHAPE',
    reproduce: { scenario: { credential: 'both', token: '' } },
    clients: {
      ...goClients({ verdict: 'accepts', note: 'an empty token is no token: it sends the certificate' }),
      'client-node': { verdict: 'accepts', note: 'an empty token is no token: it sends the certificate' },
      python: {
        verdict: 'sends-no-credential',
        note: 'silently: \'token\' in status wins, so it sends "Bearer " (no token) and never loads the certificate',
      },
    },
    why: {
      'client-node': `${NODE_EXEC}: if (credential.status.token)`,
      python: `${PY_LOAD}: if 'token' in status … elif`,
    },
  },
  {
    trait: 'token-leading-space',
    answer: 'status.token starts with a space (or is only blanks), and no certificate pair goes with it',
    contractCheck: 'EP-TOKEN-HEADER-VALUE',
    reproduce: { scenario: { token: ' credprov-fake-token' } },
    clients: {
      ...goClients({
        verdict: 'sends-no-credential',
        note: 'sends "Bearer  <token>", which the API server reads as no token',
      }),
      'client-node': {
        verdict: 'sends-no-credential',
        note: 'sends "Bearer  <token>", which the API server reads as no token',
      },
      python: {
        verdict: 'sends-no-credential',
        note: 'sends "Bearer  <token>", which the API server reads as no token',
      },
    },
    why: {
      'client-go': `k8s.io/apiserver pkg/authentication/request/bearertoken: strings.Split(auth, " ")[1] is the token; empty, the request is anonymous`,
    },
  },
  {
    trait: 'token-ends-in-line-break',
    answer: 'status.token ends in a line break ("…\\n" in the JSON)',
    contractCheck: 'EP-TOKEN-HEADER-VALUE',
    reproduce: { scenario: { token: 'credprov-fake-token\n' } },
    clients: {
      ...goClients(GO_REFUSES_HEADER),
      'client-node': {
        verdict: 'accepts',
        note: 'fetch trims trailing whitespace off a header value, the newline with it',
      },
      python: PY_REFUSES_HEADER,
    },
    why: HEADER_RULES,
  },
  {
    trait: 'token-line-break',
    answer: 'status.token holds a line break inside it',
    contractCheck: 'EP-TOKEN-HEADER-VALUE',
    reproduce: { scenario: { token: 'credprov-fake\ntoken' } },
    clients: {
      ...goClients(GO_REFUSES_HEADER),
      'client-node': { verdict: 'refuses', says: 'is an invalid header value' },
      python: PY_REFUSES_HEADER,
    },
    why: HEADER_RULES,
  },
  {
    trait: 'token-control-char',
    answer: 'status.token holds a control character other than a line break (here DEL, U+007F)',
    contractCheck: 'EP-TOKEN-HEADER-VALUE',
    reproduce: { scenario: { token: 'credprov-fake\u007ftoken' } },
    clients: {
      ...goClients(GO_REFUSES_HEADER),
      'client-node': { verdict: 'refuses', says: 'invalid Authorization header' },
      python: {
        verdict: 'server-refuses',
        note: 'http.client refuses only bare line breaks: it sends the token, and the API server answers 400 before authenticating',
      },
    },
    why: HEADER_RULES,
  },
  {
    trait: 'token-not-latin1',
    answer: 'status.token holds a character outside Latin-1 (here €, U+20AC)',
    contractCheck: 'EP-TOKEN-HEADER-VALUE',
    reproduce: { scenario: { token: 'credprov-fake-\u20ac-token' } },
    clients: {
      ...goClients({
        verdict: 'accepts',
        note: 'Go sends the UTF-8 bytes as they are (obs-text): the API server compares bytes',
      }),
      'client-node': { verdict: 'refuses', says: 'Cannot convert argument to a ByteString' },
      python: { verdict: 'refuses', says: "'latin-1' codec can't encode" },
    },
    why: HEADER_RULES,
  },
  {
    trait: 'token-non-ascii',
    answer: 'status.token holds a Latin-1 character outside ASCII (here é, U+00E9)',
    reproduce: { scenario: { token: 'credprov-fake-\u00e9-token' } },
    clients: {
      ...goClients({ verdict: 'accepts', note: 'sends é as its two UTF-8 bytes' }),
      'client-node': { verdict: 'accepts', note: 'sends é as one Latin-1 byte (0xE9), not the UTF-8 Go sends' },
      python: { verdict: 'accepts', note: 'sends é as one Latin-1 byte (0xE9), not the UTF-8 Go sends' },
    },
    why: HEADER_RULES,
  },
  {
    trait: 'token-over-16kib',
    answer: 'status.token is 64 KiB (an ID token with many group claims)',
    reproduce: { scenario: { tokenBytes: 64 * 1024 } },
    clients: {
      ...goClients({ verdict: 'accepts' }),
      'client-node': { verdict: 'accepts' },
      python: { verdict: 'accepts' },
    },
    why: {
      'client-go': `no client limits request headers; kube-apiserver takes up to ${KUBE_APISERVER_MAX_HEADER_BYTES} bytes (Node's own default is 16 KiB)`,
    },
  },
  {
    trait: 'token-over-1mib',
    answer: 'status.token is over 1 MiB, more than kube-apiserver takes in request headers',
    contractCheck: 'EP-TOKEN-HEADER-VALUE',
    reproduce: { scenario: { tokenBytes: KUBE_APISERVER_MAX_HEADER_BYTES + 64 * 1024 } },
    clients: {
      ...goClients({ verdict: 'server-refuses', note: 'the API server answers 431 Request Header Fields Too Large' }),
      'client-node': { verdict: 'server-refuses', note: 'the API server answers 431' },
      python: { verdict: 'server-refuses', note: 'the API server answers 431' },
    },
    why: {
      'client-go': `k8s.io/apiserver secure_serving.go MaxHeaderBytes: ${KUBE_APISERVER_MAX_HEADER_BYTES}; Go's server then answers 431`,
    },
  },
];
