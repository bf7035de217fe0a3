import type { Logger } from 'pino';
import {
  CHANNELS,
  type FileReloadFailedEvent,
  type PlansReloadEvent,
  type RedisDegradedEvent,
  type RedisHealthEvent,
  type RequestEndEvent,
  type UpstreamCallEvent,
} from '../events/index.js';
import { subscribeAll } from './subscribe.js';

/**
 * A request target for the log: the path, and the query's names with every value replaced by
 * `REDACTED` (OpenTelemetry's word for it). A client may put a key or a token in a query
 * (`?api_key=…`); the log keeps which parameters came, never what they said.
 */
export function withoutQueryValues(target: string): string {
  const at = target.indexOf('?');
  if (at === -1) return target;
  const query = target.slice(at + 1);
  if (query === '') return target;
  const names = query.split('&').map((pair) => {
    const equals = pair.indexOf('=');
    return equals === -1 ? pair : `${pair.slice(0, equals)}=REDACTED`;
  });
  return `${target.slice(0, at)}?${names.join('&')}`;
}

/**
 * The gateway's log, as a subscriber: one line per request (request id, trace id, route template,
 * status, outcome, plan, decision, upstream time, key id and account, never the key itself), a
 * warning per failed upstream call, an error per unexpected failure, and what the operator must
 * know of files and Redis. Returns what stops it.
 */
export function subscribeAccessLog(logger: Logger, source: object, now: () => number = Date.now): () => void {
  // While Redis is away every request is degraded: one line a second of each part is enough.
  const lastDegraded = new Map<RedisDegradedEvent['part'], number>();
  return subscribeAll({
    [CHANNELS.requestEnd]: ({ request, status, durationMs, error }: RequestEndEvent) => {
      if (request.source !== source) return;
      if (error !== undefined) logger.error({ err: error, requestId: request.id }, 'request failed');
      logger.info({
        requestId: request.id,
        traceId: request.traceId,
        method: request.method,
        url: withoutQueryValues(request.url),
        route: request.route,
        status,
        outcome: request.outcome,
        plan: request.plan,
        decision: request.decision,
        keyId: request.keyId,
        subject: request.subject,
        authFailure: request.authFailure,
        degraded: request.degraded,
        upstreamMs: request.upstreamMs,
        ms: Math.round(durationMs * 100) / 100,
      });
    },
    [CHANNELS.upstreamCall]: ({ request, errorType, cause }: UpstreamCallEvent) => {
      if (request.source !== source || errorType === undefined || errorType === 'client_gone') return;
      logger.warn({ err: cause, requestId: request.id }, errorType);
    },
    [CHANNELS.fileReloadFailed]: ({ setting, file, error }: FileReloadFailedEvent) => {
      logger.error({ err: error, file }, `${setting} could not be read again; keeping the last good content`);
    },
    [CHANNELS.plansReload]: (event: PlansReloadEvent) => {
      if (event.source === source) logPlansReload(logger, event);
    },
    [CHANNELS.redisDegraded]: ({ part, policy, error }: RedisDegradedEvent) => {
      const at = now();
      if (at - (lastDegraded.get(part) ?? -Infinity) < 1000) return;
      lastDegraded.set(part, at);
      if (part === 'revocations') logger.warn({ err: error }, 'revocation check degraded: Redis did not answer, using the last copy');
      else if (part === 'rate limits in the primary') logger.warn({ err: error, policy }, 'rate limits degraded: the gateway primary did not answer in time');
      else logger.warn({ err: error, policy }, 'rate limits degraded: Redis did not answer in time');
    },
    [CHANNELS.redisHealth]: ({ up, error }: RedisHealthEvent) => {
      if (up) logger.info('Redis answers again');
      else logger.warn({ err: error }, 'Redis does not answer: the failure policies apply');
    },
  });
}

/**
 * One line per outcome of a `PLANS_FILE` change, each naming the version in force after it (the
 * content's hash and modification time), so the lines of several instances can be compared.
 */
function logPlansReload(logger: Logger, { outcome, file, version, plans, shadowPlansMissing, error }: PlansReloadEvent): void {
  const fields = { file, version: version.hash, modified: version.modified };
  const kept = `keeping the last good content (version ${version.hash} of ${version.modified})`;
  if (outcome === 'failed') logger.error({ ...fields, err: error }, `PLANS_FILE could not be read again; ${kept}`);
  else if (outcome === 'missing') logger.warn(fields, `PLANS_FILE is gone; ${kept}`);
  else if (shadowPlansMissing !== undefined)
    logger.warn(
      { ...fields, ...plans, shadowPlansMissing },
      `PLANS_FILE reloaded (version ${version.hash}) without plans that SHADOW_PLANS names: ${shadowPlansMissing.join(', ')}`,
    );
  else logger.info({ ...fields, ...plans }, `PLANS_FILE reloaded (version ${version.hash})`);
}
