// Predictions for ecr-credential-provider in KEP-4412 service-account token
// mode (the service-account model, src/model/service-account-token.ts). Pure.
import type { RecordedAnswer } from './predict.ts';
import type { CredentialProvider } from '../../src/api/credentialprovider/types.ts';
import {
  ServiceAccountTokenModel,
  type ModelOptions,
  type PluginAnswer,
  type PullPrediction,
} from '../../src/model/service-account-token.ts';
import { ACCOUNT, MODELS, REGION, type RunNames } from './plan.ts';
import { ECR_ROLE_ANNOTATION, goDurationMs, type Prediction } from '../../src/run/kit.ts';

export function saModel(provider: CredentialProvider, o: Omit<ModelOptions, 'provider'>): ServiceAccountTokenModel {
  return new ServiceAccountTokenModel({
    ...o,
    grants: [...o.grants],
    provider: {
      name: provider.name,
      defaultCacheDurationMs: goDurationMs(provider.defaultCacheDuration),
      ...(provider.tokenAttributes ? { tokenAttributes: provider.tokenAttributes } : {}),
    },
  });
}

/** What the SA cases assume the plugin answers: Registry, the non-SA answer's duration, a password the registry accepts. */
export const saPluginAnswer = (answer: RecordedAnswer | undefined): PluginAnswer => ({
  cacheKeyType: 'Registry',
  ...(answer?.cacheDurationMs !== undefined ? { cacheDurationMs: answer.cacheDurationMs } : {}),
  password: 'static',
  registryAccepts: true,
});

export interface SaView {
  invoked: boolean;
  sts: string[];
  pull: string;
}

export function predictSaAnnotation(p: PullPrediction): Prediction<SaView> {
  const pull = `pull ${p.pull}${p.pull === 'failure' ? ' (unauthorized)' : ''}`;
  return { value: { invoked: p.invoked, sts: [], pull }, model: MODELS.sa, because: p.because };
}

export interface RbacRow {
  tokenDenied: boolean;
  invoked: boolean;
  pull: string;
}

export const rbacRow = (p: PullPrediction): RbacRow => ({
  tokenDenied: p.tokenDenied,
  invoked: p.invoked,
  pull: `pull ${p.pull}`,
});

export function predictSaRbac(
  without: PullPrediction,
  withGrant: PullPrediction,
): Prediction<{ withoutGrant: RbacRow; withGrant: RbacRow }> {
  return {
    value: { withoutGrant: rbacRow(without), withGrant: rbacRow(withGrant) },
    model: MODELS.sa,
    because: `without: ${without.because}; with: ${withGrant.because}`,
  };
}

export interface SaPullView {
  invoked: boolean;
  tokenAud: string[];
  annotations: Record<string, string>;
  aws: string[];
  pull: string;
}

export function predictSaPull(p: PullPrediction, names: RunNames): Prediction<SaPullView> {
  const roleName = names.roleArn.split('/').pop();
  return {
    value: {
      invoked: p.invoked,
      tokenAud: [names.audience],
      annotations: p.annotations ?? {},
      aws: [
        `STS AssumeRoleWithWebIdentity ${names.roleArn} aud=${JSON.stringify([names.audience])} → 200`,
        `ECR ${REGION.sa} by arn:aws:sts::${ACCOUNT}:assumed-role/${roleName}/ecr-credential-provider → 200`,
      ],
      pull: `pull ${p.pull}`,
    },
    model: `${MODELS.sa} + ${MODELS.plugin}`,
    because:
      `${p.because}; the plugin reads the role from ${ECR_ROLE_ANNOTATION}, assumes it with the token (session ecr-credential-provider) ` +
      `and signs GetAuthorizationToken for ${REGION.sa} with the session`,
  };
}

export interface SaAudienceView {
  invoked: boolean;
  tokenAud: string[];
  aws: string[];
  pluginExit: string;
  pull: string;
}

export function predictSaAudience(p: PullPrediction, names: RunNames): Prediction<SaAudienceView> {
  const sts = `STS AssumeRoleWithWebIdentity ${names.roleArn} aud=${JSON.stringify([names.wrongAudience])} → 400 InvalidIdentityToken`;
  return {
    value: {
      invoked: p.invoked,
      tokenAud: [names.wrongAudience],
      aws: [sts],
      pluginExit: 'non-zero',
      pull: 'pull failure (unauthorized)',
    },
    model: `${MODELS.sa} + ${MODELS.plugin}`,
    because:
      `${p.because.replace(/; stored under .*$/, '')}; STS (like an IAM OIDC provider) accepts only audience ${names.audience}, ` +
      'so AssumeRoleWithWebIdentity fails, GetAuthorizationToken is never signed, the plugin exits non-zero and the kubelet pulls without its credentials',
  };
}
