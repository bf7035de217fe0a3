import { RedisTimeoutError } from './command-budget.js';

/** What ioredis says when it has no connection to send a command on (none yet, or lost). */
const NO_CONNECTION = /isn't writeable|enableOfflineQueue|Connection is closed|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH/;

/**
 * A failed Redis command in the gateway's words, for an operator (`what`: how to name the Redis,
 * `Redis` by default): no connection, no answer within the budget, or Redis's own refusal
 * (`NOAUTH …`, `READONLY …`, which are Redis's words and say what to fix). Never the client's
 * wording (`Stream isn't writeable and enableOfflineQueue options is false`).
 */
export function redisFailure(error: unknown, what = 'Redis'): string {
  if (error instanceof RedisTimeoutError) return error.message.replace(/^Redis/, what);
  const message = error instanceof Error ? error.message : String(error);
  // Redis's own error reply (ioredis's `ReplyError`, known by its name: ioredis has one home, redis-client.ts).
  if (error instanceof Error && error.name === 'ReplyError') return `${what} refused the command: ${message}`;
  if (NO_CONNECTION.test(message)) return `${what} is not reachable: no connection to it`;
  // The gateway's own errors (a timeout, a subscription not made) already say it in its words.
  return /^Redis /.test(message) ? message : `${what} failed: ${message}`;
}
