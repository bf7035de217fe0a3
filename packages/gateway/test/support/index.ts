// The gateway's test support, on one shelf: the gateway's own tests import it from here, other
// packages and the repository tests as `@animal-store/gateway/testing`. Processes (redis-server,
// services) come from `@animal-store/testkit`; what is here knows the gateway.
export { writeAdminTokens } from './admin-tokens.js';
export { capturedLog } from './captured-log.js';
export { connectedRedisClient, privateRedisClient } from './connected-redis-client.js';
export {
  processRuns,
  requestOnFreshConnection,
  servingPid,
  startGatewayProcess,
  type FreshAnswer,
  type GatewayProcess,
  type LogRecord,
} from './gateway-process.js';
export { keysCli, revokeThenKill } from './keys-cli.js';
export {
  assertNeverOverLimit,
  burstyGaps,
  decisionShape,
  instants,
  replay,
  timeline,
  TIMELINE_START,
  type Admitted,
  type GapBand,
  type Replayed,
  type Timed,
  type TimelineShape,
} from './limiter-replay.js';
export { startLimitedStack, type LimitedStack } from './limited-stack.js';
export { writePlansFile, type TestLimits, type TestPlans } from './plans-file.js';
export { rawExchange } from './raw-exchange.js';
export { BIG_BODY_BYTES, startRecordingUpstream, type RecordedRequest, type RecordingUpstream } from './recording-upstream.js';
export { seededRandom } from './seeded-random.js';
export { startGateway, type RunningGateway } from './start-gateway.js';
export { PROXY_TEST_PATHS, writeDocument } from './test-document.js';
export { claimsFor, CONTROL_CHARACTER, createTestKeyring, echoBaits, forgedKeys, hmacWithPublicKey, unsignedToken, type TestKeyring } from './test-keyring.js';
export { forkLimitsWorkers, LIMITS, stopLimitsWorkers, type LimitsWorker } from './limits-workers.js';
