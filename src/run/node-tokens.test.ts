import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeKubeApis } from '../cluster/api.ts';
import { Redactor } from '../core/redact.ts';
import { json, startFakeApiServer, status, type FakeApiServer } from '../testing/fake-apiserver.ts';
import { useTempDir } from '../testing/tmp.ts';
import { refusalStage, requestPodToken, whoAmI } from './node-tokens.ts';

const tmp = useTempDir('credprov-node-tokens-');
let fake: FakeApiServer;
let kubeconfig: string;

/** Answers every POST with `answer(path)`, keeping the body it was sent. */
function answering(answer: (path: string) => [number, unknown]) {
  fake.route = (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method !== 'POST') return false;
    const [code, body] = answer(url.pathname);
    json(res, code, body);
    return true;
  };
}

beforeAll(async () => {
  fake = await startFakeApiServer();
  kubeconfig = await fake.writeKubeconfig(tmp());
});
afterAll(async () => {
  await closeKubeApis();
  await fake.close();
});

const jwt = (claims: unknown) => ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'c2ln'].join('.');
const request = {
  namespace: 'ns',
  serviceAccount: 'sa',
  pod: { name: 'p', uid: 'uid-p' },
  audience: 'plugin-audience',
};

describe('whoAmI', () => {
  test("the SelfSubjectReview's user; an error answer throws with its status and message", async () => {
    answering(() => [201, { status: { userInfo: { username: 'system:node:a', groups: ['system:nodes'] } } }]);
    expect(await whoAmI(kubeconfig)).toEqual({ username: 'system:node:a', groups: ['system:nodes'] });
    answering(() => [401, status(401, 'Unauthorized', 'Unauthorized')]);
    await expect(whoAmI(kubeconfig)).rejects.toThrow(/HTTP 401: Unauthorized/);
  });
});

describe('requestPodToken', () => {
  test("an issued token: its pod and node claims, the token itself only in the redactor; asked of the service account's token subresource", async () => {
    const token = jwt({ 'kubernetes.io': { pod: { name: 'p' }, node: { name: 'node-a' } } });
    let path = '';
    answering((p) => {
      path = p;
      return [201, { status: { token } }];
    });
    const redactor = new Redactor();
    const answer = await requestPodToken(kubeconfig, request, redactor);
    expect(answer).toEqual({ view: { status: 201, boundTo: 'p on node-a' } });
    expect(path).toBe('/api/v1/namespaces/ns/serviceaccounts/sa/token');
    expect(redactor.text(`got ${token}`)).not.toContain(token);
  });

  test('a refusal: who refused it, by the words of its message', async () => {
    const authz =
      'serviceaccounts "sa" is forbidden: User "system:node:b" cannot create resource "serviceaccounts/token" in API group "" in the namespace "ns": no relationship found between node \'b\' and this object';
    answering(() => [403, status(403, 'Forbidden', authz)]);
    expect(await requestPodToken(kubeconfig, request, new Redactor())).toEqual({
      view: { status: 403, refusedBy: 'node authorizer', says: authz },
      message: authz,
    });
    const admission =
      'serviceaccounts "sa" is forbidden: node requested token bound to a pod scheduled on a different node';
    answering(() => [403, status(403, 'Forbidden', admission)]);
    expect((await requestPodToken(kubeconfig, request, new Redactor())).view.refusedBy).toBe('NodeRestriction');
  });
});

describe('refusalStage', () => {
  test("the authorization layer's wording, or else admission", () => {
    expect(refusalStage('User "x" cannot create resource "serviceaccounts/token" in API group ""')).toBe(
      'node authorizer',
    );
    expect(refusalStage('anything else')).toBe('NodeRestriction');
  });
});
