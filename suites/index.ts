// The suites `credprov run` knows, by name. The default list is what
// scripts/run.sh runs when no --suite is given.
import type { Suite } from '../src/run/suite.ts';
import { cacheSuite } from './cache/index.ts';
import { smokeSuite } from './smoke/index.ts';
import { matchingSuite } from './matching/index.ts';
import { pullSecretsSuite } from './pull-secrets/index.ts';

export const SUITES: Record<string, Suite> = {
  smoke: smokeSuite,
  cache: cacheSuite,
  matching: matchingSuite,
  'pull-secrets': pullSecretsSuite,
};

export const DEFAULT_SUITES = ['smoke', 'matching', 'cache', 'pull-secrets'];
