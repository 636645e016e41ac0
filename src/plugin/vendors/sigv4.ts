// SigV4 lives in src/api/aws/sigv4.ts: a pure module that the model of
// aws-iam-authenticator and the fake AWS both follow. This path stays only
// for suites/vendor-aws-iam-authenticator, until the suite rewrite imports it
// from there; nothing else may import it.
export * from '../../api/aws/sigv4.ts';
