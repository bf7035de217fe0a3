/**
 * The environment the test harness reads: the CI flag, which turns a missing redis-server from a
 * skip into a failure, and where redis-server is.
 */
export const TEST_ENV = Object.freeze({
  ci: process.env.CI === 'true' || process.env.CI === '1',
  redisServerBin: process.env.REDIS_SERVER_BIN,
  redisCliBin: process.env.REDIS_CLI_BIN,
  /** Where tests leave files worth looking at (screenshots); unset, they go to temporary directories. */
  outputDir: process.env.TEST_OUTPUT_DIR,
  /** Passed on to the services tests start, and nothing else of this environment. */
  path: process.env.PATH ?? '',
});
