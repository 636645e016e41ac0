// A suite's e2e run on a local cluster, for the e2e tests that drive more than
// the suite table does (certify beside the suite, a second run that reuses the
// environment): suitesOnProvider on the local provider.
import type { Suite } from '../run/suite.ts';
import { suitesOnProvider, type SuitesOnProvider, type SuitesOnProviderOptions } from './suite-on-provider.ts';

export { notPassed, sortedIds } from './suite-on-provider.ts';

export type SuiteOnLocalCluster = SuitesOnProvider;
export type SuiteOnLocalClusterOptions = Omit<SuitesOnProviderOptions, 'provider'>;

export const suiteOnLocalCluster = (
  suites: Suite | Suite[],
  o: SuiteOnLocalClusterOptions,
): Promise<SuiteOnLocalCluster> => suitesOnProvider(suites, { ...o, provider: 'local' });
