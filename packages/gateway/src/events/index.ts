export { publishKeyCacheLookup, publishRedisCommand, type KeyCacheLookupEvent, type RedisCommandEvent } from './channels.js';
export { UNMATCHED_ROUTE, type RequestRecord } from './request-record.js';
export {
  CHANNELS,
  publishAuthOutcome,
  publishFileReloadFailed,
  publishLimitDecision,
  publishRedisDegraded,
  publishRedisHealth,
  publishRequestEnd,
  publishRequestStart,
  publishUpstreamCall,
  publishUpstreamStart,
  type AuthOutcomeEvent,
  type FileReloadFailedEvent,
  type LimitDecisionEvent,
  type LimitDecisionKind,
  type RedisDegradedEvent,
  type RedisHealthEvent,
  type RequestEndEvent,
  type RequestStartEvent,
  type UpstreamCallEvent,
  type UpstreamStartEvent,
} from './channels.js';
