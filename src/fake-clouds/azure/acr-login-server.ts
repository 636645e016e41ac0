// An ACR login server's token endpoints (<name>.azurecr.io): GET /v2/ answers
// 401 with ACR's Bearer challenge (realm https://<name>.azurecr.io/oauth2/token,
// service <name>.azurecr.io); POST /oauth2/exchange (grant_type
// access_token_refresh_token) needs an access token fake Azure issued for ACR's
// audience, the login server as service and the tenant it was configured with,
// and answers {refresh_token}. Pulls never come here: the registry is the lab's.
import { jsonReply, Refusal, type Endpoint, type IssuedTokens } from '../kit/index.ts';
import { publicPath, type FakeAzureRequest, type IssuedAccess } from './records.ts';

/** The audience an access token must have for the exchange (ACR's, azure_credentials.go:47 AcrAudience). */
export const ACR_AUDIENCE = 'https://containerregistry.azure.net';

export function acrLoginServerEndpoint(
  loginServer: string,
  o: { tenantId: string; tokens: IssuedTokens<IssuedAccess>; refreshToken: (loginServer: string) => string },
): Endpoint<FakeAzureRequest> {
  return {
    record: (req) => ({ endpoint: 'acr', path: publicPath(req.url) }),
    refuse: (r) =>
      jsonReply(r.status, { errors: [{ code: r.code, ...(r.status === 404 ? {} : { message: r.message }) }] }),
    answer(req, note) {
      if (req.method === 'GET' && req.url.pathname === '/v2/') {
        const challenge = `Bearer realm="https://${loginServer}/oauth2/token",service="${loginServer}"`;
        return jsonReply(401, { errors: [{ code: 'UNAUTHORIZED' }] }, { 'www-authenticate': challenge });
      }
      if (req.method !== 'POST' || req.url.pathname !== '/oauth2/exchange')
        throw new Refusal(404, 'NOT_FOUND', `no such endpoint ${req.url.pathname}`);
      const form = req.form();
      const seen = {
        grantType: form.get('grant_type') ?? '',
        service: form.get('service') ?? '',
        tenant: form.get('tenant') ?? '',
      };
      note(seen);
      const issued = o.tokens.lookup(form.get('access_token') ?? '');
      const error =
        (req.header('content-type') ?? '') !== 'application/x-www-form-urlencoded'
          ? 'the exchange is a form post'
          : seen.grantType !== 'access_token_refresh_token'
            ? `grant_type ${seen.grantType} is not access_token_refresh_token`
            : seen.service !== loginServer
              ? `service ${seen.service} is not ${loginServer}`
              : !issued
                ? 'access_token was not issued by the fake identity endpoint'
                : issued.resource !== ACR_AUDIENCE
                  ? `access_token is for ${issued.resource}, not ${ACR_AUDIENCE}`
                  : seen.tenant !== o.tenantId
                    ? `tenant ${seen.tenant} is not ${o.tenantId}`
                    : undefined;
      if (error || !issued) throw new Refusal(401, 'UNAUTHORIZED', error ?? 'no access token');
      note({ identity: issued.identity });
      return jsonReply(200, { refresh_token: o.refreshToken(loginServer) });
    },
  };
}
