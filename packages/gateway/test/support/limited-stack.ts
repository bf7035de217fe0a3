import { startRedis, type RedisServer } from '@animal-store/testkit';
import { startRecordingUpstream, type RecordingUpstream } from './recording-upstream.js';
import { PROXY_TEST_PATHS, writeDocument } from './test-document.js';
import { createTestKeyring, type TestKeyring } from './test-keyring.js';

/** What a rate-limit test puts its gateways in front of: a Redis of its own, an upstream, keys. */
export interface LimitedStack {
  /** Undefined when started with `{ redis: false }` (in-process limits, or a cluster of the test's own). */
  readonly redis: RedisServer | undefined;
  readonly upstream: RecordingUpstream;
  readonly keyring: TestKeyring;
  /**
   * A gateway's env for this stack: the upstream with the test document's operations
   * (`PROXY_TEST_PATHS`), the keyring's JWKS, `RATE_LIMITS=on`, and `REDIS_URL` when there is a
   * Redis. Tests spread their own settings over it.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Closes the upstream and Redis; the gateways are the test's to close (some close them early). */
  close(): Promise<void>;
}

/**
 * Starts a private redis-server (unless `redis: false`), a recording upstream and a test
 * keyring: the setup the rate-limit tests share.
 */
export async function startLimitedStack(options: { readonly redis?: boolean } = {}): Promise<LimitedStack> {
  const redis = options.redis === false ? undefined : await startRedis();
  const upstream = await startRecordingUpstream();
  const keyring = await createTestKeyring();
  const env = {
    UPSTREAM_URL: upstream.url,
    OPENAPI_FILE: writeDocument(PROXY_TEST_PATHS),
    JWKS_FILE: keyring.files.jwks,
    ...(redis === undefined ? {} : { REDIS_URL: redis.url }),
    RATE_LIMITS: 'on',
  };
  return {
    redis,
    upstream,
    keyring,
    env,
    async close() {
      await upstream.close();
      await redis?.close();
    },
  };
}
