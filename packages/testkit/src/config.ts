/**
 * The environment the test harness reads: the CI flag, which turns a missing redis-server from a
 * skip into a failure, and where redis-server is.
 */
export const TEST_ENV = Object.freeze({
  ci: process.env.CI === 'true' || process.env.CI === '1',
  redisServerBin: process.env.REDIS_SERVER_BIN,
  redisCliBin: process.env.REDIS_CLI_BIN,
  /** Passed on to the services tests start, and nothing else of this environment. */
  path: process.env.PATH ?? '',
});
