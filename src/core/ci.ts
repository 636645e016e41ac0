// Whether this process runs under CI: there a missing prerequisite of a suite
// CI is meant to run fails with its reason instead of skipping.
export const inCI = (env: NodeJS.ProcessEnv = process.env): boolean => env.CI === 'true' || env.CI === '1';
