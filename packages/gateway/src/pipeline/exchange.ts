import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identity } from '../auth/index.js';
import { UNMATCHED_ROUTE, type RequestRecord } from '../events/index.js';
import type { ClientView } from '../http/client-view.js';
import { requestIdOf } from '../http/request-id.js';
import type { Operation } from '../routing/index.js';
import type { Answer } from './answer.js';

/** One request on its way through the steps: what each step learned for the ones after it. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** The raw target, query included. */
  readonly url: string;
  /** The target without its query. */
  readonly path: string;
  /** Headers that join every answer, the gateway's own or the upstream's: request id, limits, deprecation, CORS. */
  readonly headers: Record<string, string>;
  /** What the events say about this request (the access log line is made from it). */
  readonly record: RequestRecord;
  client?: ClientView;
  /** The matched operation; absent for paths and methods that are none. */
  operation?: Operation;
  /** What to answer for a request that matched no operation, once its anonymous limit allowed it. */
  miss?: Answer;
  /** The verified key's identity; absent with AUTH=off or on operations without security. */
  identity?: Identity;
  /**
   * The key check whose outcome is not told yet: with limits in Redis, the deny-list is asked in
   * the limit's round trip, which settles it (`settleAuth`).
   */
  pendingAuth?: AuthTiming | undefined;
  /** The buffered request body (`undefined` for none). */
  body?: Buffer | undefined;
  /** What a step threw that the gateway did not expect (answered 500). */
  failure?: unknown;
}

/** How long a key check took, and whether it checked a signature (the key was not in the cache). */
export interface AuthTiming {
  readonly verified: boolean;
  readonly startedAt: number;
  readonly durationMs: number;
}

/** Who sent the request, as routing learnt it: every step that asks comes after routing. */
export function clientOf(x: Exchange): ClientView {
  if (x.client === undefined) throw new Error('the client is known from the routing step on');
  return x.client;
}

/** A named step of the request path: an answer ends the request there; nothing lets it go on. */
export type Step = (x: Exchange) => Answer | undefined | Promise<Answer | undefined>;

/** The exchange of a request that just arrived. */
export function openExchange(req: IncomingMessage, res: ServerResponse, source: object): Exchange {
  const url = req.url ?? '/';
  const queryStart = url.indexOf('?');
  const id = requestIdOf(req.headers['x-request-id']);
  const method = req.method ?? 'GET';
  return {
    req,
    res,
    method,
    url,
    path: queryStart === -1 ? url : url.slice(0, queryStart),
    headers: { 'x-request-id': id },
    record: {
      source,
      id,
      method,
      url,
      startedAt: performance.now(),
      route: UNMATCHED_ROUTE,
      outcome: 'internal_error',
      traceId: traceIdOf(req.headers.traceparent),
    },
  };
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}/;

/** The trace id of a W3C `traceparent` (the client's trace, which the log line names), if valid. */
function traceIdOf(traceparent: string | string[] | undefined): string | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const id = TRACEPARENT.exec(traceparent)?.[1];
  return id === undefined || /^0+$/.test(id) ? undefined : id;
}
