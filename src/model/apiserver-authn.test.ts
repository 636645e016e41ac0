import { describe, expect, test } from '@jest/globals';
import {
  ApiServerAuthModel,
  JWKS_REFETCH_WINDOW_MS,
  JwtAuthenticatorModel,
  TOKEN_SUCCESS_CACHE_MS,
  type ModelJwt,
} from './apiserver-authn.ts';

describe('JWT authenticator model (go-oidc v2.5.0 key set and verifier)', () => {
  test('an unknown kid fetches the JWKS; a known one is verified from the cached keys without a fetch', () => {
    const served = ['k1'];
    const m = new JwtAuthenticatorModel(() => [...served]);
    const t: ModelJwt = { kid: 'k1', expMs: 100_000 };
    expect(m.verify(t, 0)).toMatchObject({ verdict: 'authenticated', fetched: true });
    expect(m.verify(t, 1000)).toMatchObject({ verdict: 'authenticated', fetched: false });
  });

  test('exp has no leeway: good through the exp instant, refused right after; a nbf up to a minute ahead is fine', () => {
    const m = new JwtAuthenticatorModel(() => ['k1']);
    expect(m.verify({ kid: 'k1', expMs: 5000 }, 5000).verdict).toBe('authenticated');
    expect(m.verify({ kid: 'k1', expMs: 5000 }, 5001).verdict).toBe('expired');
    expect(m.verify({ kid: 'k1', expMs: 200_000, nbfMs: 60_000 }, 1).verdict).toBe('authenticated');
    expect(m.verify({ kid: 'k1', expMs: 200_000, nbfMs: 60_002 }, 1).verdict).toBe('unknown');
  });

  test('a removed key verifies until an unknown kid refetches (no timer), then its tokens are refused and each refusal refetches', () => {
    let served = ['k1'];
    const m = new JwtAuthenticatorModel(() => [...served]);
    expect(m.verify({ kid: 'k1', expMs: 10_000_000 }, 0).fetched).toBe(true);
    served = ['k2'];
    expect(m.verify({ kid: 'k1', expMs: 10_000_000 }, 3_600_000)).toMatchObject({
      verdict: 'authenticated',
      fetched: false,
    });
    expect(m.verify({ kid: 'k2', expMs: 10_000_000 }, 3_600_001)).toMatchObject({
      verdict: 'authenticated',
      fetched: true,
    });
    expect(m.verify({ kid: 'k1', expMs: 10_000_000 }, 3_600_002)).toMatchObject({ verdict: 'unknown', fetched: true });
    expect(JWKS_REFETCH_WINDOW_MS).toBe(30_000);
  });

  test('behind the success cache, a JWT verified before exp is served for 10s after that, expired or not', () => {
    const jwt = new JwtAuthenticatorModel(() => ['k1']);
    const tokens: Record<string, ModelJwt> = { r: { kid: 'k1', expMs: 3000 } };
    const api = new ApiServerAuthModel({
      review: (t, now) => jwt.verify(tokens[t]!, now).verdict,
      certValid: () => false,
    });
    expect(api.serve(0, { token: 'r' })).toMatchObject({ status: 200, reviewed: true });
    expect(api.serve(6000, { token: 'r' })).toMatchObject({ status: 200, reviewed: false });
    expect(api.serve(TOKEN_SUCCESS_CACHE_MS + 1, { token: 'r' })).toMatchObject({ status: 401, reviewed: true });
  });
});
