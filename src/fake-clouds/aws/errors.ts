// How AWS says no, service by service: the JSON protocol's error (ECR, and any
// service behind the catch-all), and STS's query-protocol XML error, or JSON
// when the caller asks for it (aws-iam-authenticator's GetCallerIdentity does).
import { randomBytes } from 'node:crypto';
import { xmlEscape, type CloudRequest, type RefusalShape, type Reply } from '../kit/index.ts';

export function requestId(): string {
  return randomBytes(16)
    .toString('hex')
    .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
}

/** awsJson 1.1 (ECR's protocol): application/x-amz-json-1.1 and a request id. */
export function awsJson(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return {
    status,
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': requestId(), ...headers },
    body: JSON.stringify(body),
  };
}

/** {__type, message} and x-amzn-errortype, as the JSON protocol's services refuse. */
export const awsJsonRefusal: RefusalShape = (r) =>
  awsJson(r.status, { __type: r.code, message: r.message }, { 'x-amzn-errortype': r.code });

export function wantsJson(req: CloudRequest): boolean {
  return /application\/json/.test(req.header('accept') ?? '');
}

export function stsJson(status: number, body: unknown): Reply {
  return {
    status,
    headers: { 'content-type': 'application/json', 'x-amzn-requestid': requestId() },
    body: JSON.stringify(body),
  };
}

export function stsXml(status: number, body: string): Reply {
  return { status, headers: { 'content-type': 'text/xml' }, body };
}

/** STS's ErrorResponse; for GetCallerIdentity asked with Accept: application/json, its JSON form. */
export function stsRefusal(json: (req: CloudRequest) => boolean): RefusalShape {
  return (r, req) =>
    json(req)
      ? stsJson(r.status, { Error: { Code: r.code, Message: r.message, Type: 'Sender' }, RequestId: requestId() })
      : stsXml(
          r.status,
          `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error><Type>Sender</Type><Code>${xmlEscape(r.code)}</Code><Message>${xmlEscape(r.message)}</Message></Error>
  <RequestId>${requestId()}</RequestId>
</ErrorResponse>
`,
        );
}
