// The fake-cloud kit: what every fake cloud is built on (see ../README.md).
// A fake imports the kit from here, never a module inside it.
export {
  FakeCloud,
  type Endpoint,
  type FakeCloudOptions,
  type ListenAt,
  type Listening,
  type Note,
  type Serve,
} from './cloud.ts';
export {
  cloudRequest,
  jsonReply,
  oauthRefusal,
  Refusal,
  xmlEscape,
  type CloudRequest,
  type RefusalShape,
  type Reply,
} from './exchange.ts';
export { RequestLog, type CloudRecord } from './request-log.ts';
export { claimHostname, serveOnFreeLoopbackAddress, serveUnderHostnames, type ServedHostnames } from './hostnames.ts';
export { audiences, IssuedTokens, TrustedIssuer, type JwtVerdict, type OidcTrust } from './rules.ts';
export { claimsOf, type TokenClaims } from '../../core/token-claims.ts';
