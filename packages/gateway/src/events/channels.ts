import { channel } from 'node:diagnostics_channel';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Identity } from '../identity/index.js';
import type { RequestRecord } from './request-record.js';

/*
 * What the parts of the gateway tell whoever listens, on `node:diagnostics_channel`. A part
 * publishes and never knows who subscribes (the access log, the metrics, the traces). Where an
 * event is made for every request, the part makes it only when its publisher is `active`: with
 * nobody subscribed, a publication costs one property read. Times are `performance.now()` milliseconds.
 */
export const CHANNELS = {
  requestStart: 'gateway:request:start',
  requestEnd: 'gateway:request:end',
  authOutcome: 'gateway:auth:outcome',
  keyCacheLookup: 'gateway:auth:key-cache',
  limitDecision: 'gateway:ratelimit:decision',
  upstreamStart: 'gateway:upstream:start',
  upstreamCall: 'gateway:upstream:call',
  redisCommand: 'gateway:redis:command',
  redisHealth: 'gateway:redis:health',
  redisDegraded: 'gateway:redis:degraded',
  fileReloadFailed: 'gateway:file:reload-failed',
  plansReload: 'gateway:plans:reload',
} as const;

export interface RequestStartEvent {
  readonly request: RequestRecord;
  readonly headers: IncomingHttpHeaders;
}
export interface RequestEndEvent {
  readonly request: RequestRecord;
  readonly status: number;
  readonly durationMs: number;
  /** A failure the gateway did not expect (answered 500), for the log. */
  readonly error?: unknown;
}
export interface AuthOutcomeEvent {
  readonly request: RequestRecord;
  /** `missing`: no usable `Authorization`; `throttled`: not verified, the client is over its anonymous limit. */
  readonly outcome: 'authenticated' | 'missing' | 'rejected' | 'revoked' | 'unavailable' | 'throttled';
  /** A key was verified (its signature checked) for this request; false when the cache knew it. */
  readonly verified: boolean;
  readonly startedAt: number;
  readonly durationMs: number;
}
export interface KeyCacheLookupEvent {
  readonly result: 'hit' | 'miss';
}
/**
 * The decision as an operator counts them (`fail_open`, `local`: Redis failed, the policy answered;
 * `shadow_limited`: admitted, where its plan in shadow would have refused).
 */
export type LimitDecisionKind = 'allowed' | 'limited' | 'banned' | 'shadow_limited' | 'fail_open' | 'local' | 'unavailable';
export interface LimitDecisionEvent {
  readonly request: RequestRecord | undefined;
  /** The policy's name: a plan, or `anonymous`. */
  readonly plan: string;
  /**
   * The verified key whose plan decided (the admin API's ledger records who was seen on a day);
   * absent for an address's anonymous limit and for the usage endpoint's own.
   */
  readonly identity?: Identity | undefined;
  readonly decision: LimitDecisionKind;
  readonly startedAt: number;
  readonly durationMs: number;
}
export interface UpstreamStartEvent {
  readonly request: RequestRecord;
  /** The headers about to go upstream: a subscriber may add its own (`traceparent`). */
  readonly headers: OutgoingHttpHeaders;
}
export interface UpstreamCallEvent {
  readonly request: RequestRecord;
  readonly serverAddress: string;
  readonly serverPort: number;
  readonly startedAt: number;
  readonly durationMs: number;
  /** The upstream's status; absent when the exchange failed or the client left. */
  readonly status?: number;
  /** Why the call failed (`bad_gateway`, `upstream_timeout`, `client_gone`). */
  readonly errorType?: string;
  /** The failure itself, for the log. */
  readonly cause?: unknown;
}
export interface RedisCommandEvent {
  readonly command: string;
  readonly durationMs: number;
  readonly ok: boolean;
}
export interface RedisHealthEvent {
  readonly up: boolean;
  readonly error?: unknown;
}
/**
 * A request was answered without Redis: it did not answer within its command budget, and a
 * failure policy (limits) or the deny-list's last copy (revocations) answered instead. One per
 * request while it lasts: the log keeps one line a second of each.
 */
export interface RedisDegradedEvent {
  /** What degraded: limits in Redis, limits kept by the gateway's primary (its workers' channel to it), revocations. */
  readonly part: 'rate limits' | 'rate limits in the primary' | 'revocations';
  /** For rate limits: `RATE_LIMIT_ON_REDIS_FAILURE` or `RATE_LIMIT_ON_PRIMARY_FAILURE` (`open`, `closed`, `local`). */
  readonly policy?: string;
  readonly error: unknown;
}
export interface FileReloadFailedEvent {
  readonly setting: string;
  readonly file: string;
  readonly error: unknown;
}
/** Which content of `PLANS_FILE` an instance keeps: what operators compare across instances. */
export interface PlansVersion {
  /** The first 16 hex digits of the SHA-256 of the file's bytes. */
  readonly hash: string;
  /** The file's modification time when it was read (ISO 8601). */
  readonly modified: string;
}
/**
 * `PLANS_FILE` changed under a running gateway: one event per outcome. `loaded`: the new content
 * applies; `failed` (unreadable, invalid) and `missing` (the file is gone): the last good content
 * stays. `version` is the content in force after the event.
 */
export interface PlansReloadEvent {
  /** The gateway whose plans these are (its log and metrics take only its own). */
  readonly source: object | undefined;
  readonly outcome: 'loaded' | 'failed' | 'missing';
  readonly file: string;
  readonly version: PlansVersion;
  /** `loaded`: the plans added, removed and changed, by name. */
  readonly plans?: { readonly added: readonly string[]; readonly removed: readonly string[]; readonly changed: readonly string[] };
  /** `loaded`: names in `SHADOW_PLANS` that the new content has no plan of. */
  readonly shadowPlansMissing?: readonly string[];
  /** `failed`: why. */
  readonly error?: unknown;
}

const channels = {
  requestStart: channel(CHANNELS.requestStart),
  requestEnd: channel(CHANNELS.requestEnd),
  authOutcome: channel(CHANNELS.authOutcome),
  keyCacheLookup: channel(CHANNELS.keyCacheLookup),
  limitDecision: channel(CHANNELS.limitDecision),
  upstreamStart: channel(CHANNELS.upstreamStart),
  upstreamCall: channel(CHANNELS.upstreamCall),
  redisCommand: channel(CHANNELS.redisCommand),
  redisHealth: channel(CHANNELS.redisHealth),
  redisDegraded: channel(CHANNELS.redisDegraded),
  fileReloadFailed: channel(CHANNELS.fileReloadFailed),
  plansReload: channel(CHANNELS.plansReload),
};

/** Publishes an event on its channel: `if (publishX.active) publishX({ … })`, so that no event is made for nobody. */
export interface Publisher<T> {
  (event: T): void;
  /** Someone subscribed to the channel. */
  readonly active: boolean;
}

function publisher<T>(name: keyof typeof channels): Publisher<T> {
  const target = channels[name];
  // A channel with no subscriber ignores what it is given.
  const publish = (event: T) => target.publish(event);
  return Object.defineProperty(publish, 'active', { get: () => target.hasSubscribers }) as Publisher<T>;
}

export const publishRequestStart = publisher<RequestStartEvent>('requestStart');
export const publishRequestEnd = publisher<RequestEndEvent>('requestEnd');
export const publishAuthOutcome = publisher<AuthOutcomeEvent>('authOutcome');
export const publishKeyCacheLookup = publisher<KeyCacheLookupEvent>('keyCacheLookup');
export const publishLimitDecision = publisher<LimitDecisionEvent>('limitDecision');
export const publishUpstreamStart = publisher<UpstreamStartEvent>('upstreamStart');
export const publishUpstreamCall = publisher<UpstreamCallEvent>('upstreamCall');
export const publishRedisCommand = publisher<RedisCommandEvent>('redisCommand');
export const publishRedisHealth = publisher<RedisHealthEvent>('redisHealth');
export const publishRedisDegraded = publisher<RedisDegradedEvent>('redisDegraded');
export const publishFileReloadFailed = publisher<FileReloadFailedEvent>('fileReloadFailed');
export const publishPlansReload = publisher<PlansReloadEvent>('plansReload');
