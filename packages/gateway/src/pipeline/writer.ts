import type { ServerResponse } from 'node:http';
import type { ErrorCode } from '../errors.js';
import { sendError, sendJson } from '../http/reply.js';
import { exhaustedWindows, isMonth, rateLimitHeaders, retryAfterSeconds, type RateDecision } from '../ratelimit/index.js';
import type { Answer, Outcome } from './answer.js';
import type { Exchange } from './exchange.js';

/**
 * The one place that writes the gateway's own answers, always with the exchange's headers (request
 * id, rate-limit state, deprecation, CORS). Returns the outcome, and records it.
 */
export function writeAnswer(x: Exchange, answer: Answer): Outcome {
  const outcome = write(x.res, x.headers, answer);
  x.record.outcome = outcome;
  return outcome;
}

function write(res: ServerResponse, headers: Record<string, string>, answer: Answer): Outcome {
  switch (answer.kind) {
    case 'error':
      sendError(res, answer.code, answer.headers === undefined ? headers : { ...headers, ...answer.headers }, answer.message);
      return answer.outcome ?? answer.code;
    case 'limited':
      return writeRefusal(res, headers, answer.decision);
    case 'status':
      sendJson(res, answer.status, answer.body, headers);
      return 'health';
    case 'document':
      res.writeHead(200, { ...headers, 'content-type': answer.contentType, 'content-length': Buffer.byteLength(answer.text) });
      res.end(answer.text);
      return 'docs';
    case 'asset':
      res.writeHead(answer.status, { ...headers, ...answer.headers });
      res.end(answer.body);
      return 'docs';
    case 'json':
      sendJson(res, answer.status, answer.body, headers);
      return answer.outcome;
    case 'preflight':
      res.writeHead(204, { ...headers, ...answer.headers });
      res.end();
      return 'preflight';
    case 'proxied':
      return 'proxied';
    case 'client_gone':
      return 'client_gone';
  }
}

/**
 * A limit's refusal, all of it from the decision: `key_banned` or `rate_limited`, the rate-limit
 * headers, the message (how long a ban lasts; that waiting will not help a request the plan can
 * never admit) and, for problem details, the windows that refused.
 */
function writeRefusal(res: ServerResponse, headers: Record<string, string>, decision: RateDecision): ErrorCode {
  const all = { ...headers, ...rateLimitHeaders(decision) };
  const { code, message } = refusalOf(decision);
  sendError(res, code, all, message, code === 'key_banned' ? undefined : exhaustedWindows(decision));
  return code;
}

/** The code and message of a refusal: which layer refused, and what waiting does. */
function refusalOf(decision: RateDecision): { code: ErrorCode; message: string | undefined } {
  if (decision.kind === 'banned') {
    return { code: 'key_banned', message: `This API key is banned for ${retryAfterSeconds(decision)} s for sending requests while rate limited.` };
  }
  const never = decision.retryAt === undefined ? 'This request exceeds what the plan can ever admit; retrying will not help.' : undefined;
  const binding = decision.binding;
  if (decision.policy.anonymous === true) {
    // Charged for a request without a valid key or operation (a typo in the path, a wrong key):
    // say so, or a client with a good key reads it as its own plan's refusal.
    const budget = binding === undefined ? '' : ` (${binding.limit} a ${binding.name})`;
    return {
      code: 'anonymous_rate_limited',
      message:
        never ??
        `Too many requests from this address without a valid API key or to no operation${budget}: this is the address's budget for such requests, not an API key's limit. Check the path and the key; retry after the time in Retry-After.`,
    };
  }
  if (binding?.layer !== undefined) {
    return { code: 'operation_limited', message: never ?? `${binding.layer} is at its ceiling for all callers (${binding.limit} a ${binding.name}).` };
  }
  if (binding !== undefined && isMonth(binding)) {
    const renews = decision.retryAt === undefined ? '' : `: it renews at ${new Date(decision.retryAt).toISOString()}`;
    return { code: 'quota_exhausted', message: never ?? `The account's monthly quota of ${binding.limit} is used up${renews}.` };
  }
  return { code: 'rate_limited', message: never };
}

/** A step threw: the client left (not a gateway bug), or the gateway answers 500 and the log says why. */
export function answerFailure(x: Exchange, failure: unknown): void {
  const { req, res } = x;
  if (req.socket.destroyed && !res.headersSent) {
    res.destroy(); // the client left mid-request (an aborted upload, say)
    x.record.outcome = 'client_gone';
    return;
  }
  x.failure = failure;
  x.record.outcome = 'internal_error';
  try {
    if (res.headersSent) res.destroy();
    else writeAnswer(x, { kind: 'error', code: 'internal_error' });
  } catch {
    res.destroy(); // a header the operator configured may not be sendable; never crash for it
  }
}
