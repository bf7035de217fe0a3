import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BlockList } from 'node:net';
import { clientView } from '../http/client-view.js';
import { rateLimitHeaders, type RateDecision } from '../ratelimit/index.js';
import { adminError, writeAdminAnswer, type AdminAnswer } from './admin-answer.js';
import { AdminError } from './admin-errors.js';
import { adminSegments, InvalidParameter, type AdminRequest } from './admin-request.js';
import { adminRoutes, type RoutesDeps } from './admin-routes.js';
import type { AdminTokens } from './admin-tokens.js';
import { consoleAsset } from './console/console-assets.js';
import { InvalidCursorError } from './ledger/index.js';

export interface AdminApiDeps extends RoutesDeps {
  /** The admin tokens in force (a reload reads the file again). */
  readonly tokens: () => AdminTokens;
  /** Charges a request without a valid token to its address's anonymous limit: the decision. */
  readonly charge: (ip: string) => Promise<RateDecision>;
  /** `TRUST_PROXY` in force: the proxies whose `X-Forwarded-For` names the client. */
  readonly trustProxy: () => BlockList | undefined;
  /** Told of every request refused for its token: none sent (`missing`) or not one of the file's (`invalid`). */
  readonly refused?: (ip: string, reason: 'missing' | 'invalid', status: number) => void;
}

/** Answers a request of the admin listener under `/admin`; false (nothing answered) for any other path. */
export type AdminHandler = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

/**
 * The admin API and console under `/admin` on the admin listener (`METRICS_PORT`, never the
 * public port). The console's three files are served to anyone (they hold nothing); every other
 * path needs `Authorization: Bearer <admin token>`. A request without a valid token is charged to
 * its address's anonymous limit, as any request without a valid API key is: `401`, and `429`
 * once the address is over it. Every answer is JSON (the billing's CSV aside), errors with the
 * Error body of `ADMIN_ERRORS`.
 */
export function createAdminApi(deps: AdminApiDeps): AdminHandler {
  const routes = adminRoutes(deps);

  async function answer(req: IncomingMessage, path: string): Promise<AdminAnswer> {
    const method = req.method ?? 'GET';
    const asset = consoleAsset(method, path, req.headers['if-none-match']);
    if (asset !== undefined) return asset;
    // The console is `admin` relative to its page: from `/admin/` that would be `/admin/admin`.
    if (path === '/admin/') return { kind: 'redirect', location: '../admin' };
    const { ip } = clientView(req, deps.trustProxy());
    const who = deps.tokens().nameOf(req.headers.authorization);
    if (who === undefined) return refuse(ip, req.headers.authorization !== undefined);
    const segments = adminSegments(path) as string[];
    const route = routes.find(
      (candidate) => candidate.path.length === segments.length && candidate.path.every((part, i) => part.startsWith(':') || part === segments[i]),
    );
    if (route === undefined) return adminError('not_found');
    const handle = route.methods[method];
    if (handle === undefined) return adminError('method_not_allowed', undefined, { allow: Object.keys(route.methods).join(', ') });
    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
    const request: AdminRequest = { req, method, segments, query, who, ip };
    return handle(request);
  }

  /** `401`, or `429` when the address is over its anonymous limit: the failure is charged either way. */
  async function refuse(ip: string, sent: boolean): Promise<AdminAnswer> {
    const decided = await deps.charge(ip);
    deps.refused?.(ip, sent ? 'invalid' : 'missing', decided.allowed ? 401 : 429);
    if (!decided.allowed) return adminError('anonymous_rate_limited', undefined, rateLimitHeaders(decided));
    return adminError('unauthorized', sent ? 'The admin token is not one of ADMIN_TOKEN_FILE.' : undefined, { 'www-authenticate': 'Bearer realm="admin"' });
  }

  return function handleAdmin(req, res, path) {
    if (path !== '/admin' && !path.startsWith('/admin/')) return false;
    answer(req, path).then(
      (made) => writeAdminAnswer(res, made),
      (error: unknown) => writeAdminAnswer(res, failureAnswer(error, deps)),
    );
    return true;
  };
}

/** A handler's failure as an answer: a bad parameter is `400`, an infrastructure failure its `503`, a bug `500` (logged). */
function failureAnswer(error: unknown, deps: Pick<AdminApiDeps, 'logger'>): AdminAnswer {
  if (error instanceof InvalidParameter) return adminError('invalid_parameter', `${error.message}.`);
  if (error instanceof InvalidCursorError) return adminError('invalid_parameter', 'cursor is not one this gateway gave.');
  if (error instanceof AdminError) return adminError(error.code, error.message, { ...(error.status === 503 ? { 'retry-after': '1' } : {}), ...error.headers });
  deps.logger.error({ err: error }, 'admin request failed');
  return adminError('internal_error');
}
