import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createClientErrorHandler, type ClientErrorKind } from '@animal-store/http-kit';
import type { Logger } from 'pino';
import { RevocationsUnavailableError, type Authenticate, type Identity } from './auth/index.js';
import { rateLimitHeaders, RateLimitUnavailableError, type RateDecision, type RateLimiting } from './ratelimit/index.js';
import type { GatewayConfig } from './config/index.js';
import { DEPRECATION_NOTES_PATH, deprecationHeaders, deprecationNotes, isPastSunset } from './deprecation/index.js';
import { errorBody } from './errors.js';
import { requestArrived } from './config/file-stamp.js';
import { clientView } from './http/client-view.js';
import { createCors } from './http/cors.js';
import { BodyTooLargeError, readBody } from './http/read-body.js';
import { sendError, sendJson } from './http/reply.js';
import { upstreamHeaders } from './http/upstream-headers.js';
import { requestIdOf } from './observability/request-id.js';
import type { Upstream } from './proxy/index.js';
import { createRouteTable, type Operation } from './routing/index.js';

export interface GatewayDeps {
  readonly logger: Logger;
  readonly upstream: Upstream;
  /** The operations of the interface document (see `loadOperations`). */
  readonly operations: readonly Operation[];
  /** What else must answer for /readyz to say ready (the upstream always must): Redis, say. */
  readonly readiness?: readonly { readonly name: string; ready(): Promise<boolean> }[];
  /** Checks API keys; absent when AUTH=off (every request passes without identity). */
  readonly authenticate?: Authenticate | undefined;
  /** Per-plan limits; absent when RATE_LIMITS=off. */
  readonly rateLimiting?: RateLimiting | undefined;
  /** Milliseconds since the epoch; injected so tests can stand on either side of a sunset. */
  readonly now?: () => number;
}

/**
 * The gateway as a `node:http` server, not yet listening. Per request:
 * route → deprecation headers → authenticate → rate-limit → sunset → buffer body → proxy → map
 * failures. Requests without a valid key (unknown paths, 401s) are limited per client address.
 * Every answer the gateway makes itself is the `{code, message, status}` Error body.
 */
export function createGateway(config: GatewayConfig, deps: GatewayDeps): Server | TlsServer {
  const { logger, upstream, operations, authenticate, rateLimiting } = deps;
  const now = deps.now ?? Date.now;
  const matchRoute = createRouteTable(operations);
  const docUrl = config.deprecationDocUrl ?? DEPRECATION_NOTES_PATH;
  const notes = deprecationNotes(operations);
  const cors =
    config.cors === undefined
      ? undefined
      : createCors(config.cors, (path) => {
          const match = matchRoute('OPTIONS', path);
          return match.kind === 'not_found' ? undefined : match.allow;
        });
  const upstreamBase = config.upstream.basePath;

  /** Fields for the request's log line, filled in as the pipeline learns them (never the key). */
  interface Trace {
    outcome?: string;
    keyId?: string;
    subject?: string;
    authFailure?: string;
    degraded?: boolean;
  }

  /**
   * Applies a rate-limit decision: its headers join every answer; a refusal is answered here.
   * Returns the outcome when the request was answered, `undefined` when it may go on.
   */
  async function limit(res: ServerResponse, decide: () => Promise<RateDecision>, headers: Record<string, string>, trace: Trace): Promise<string | undefined> {
    let decision: RateDecision;
    try {
      decision = await decide();
    } catch (failure) {
      if (failure instanceof RevocationsUnavailableError) {
        trace.authFailure = `revocations: ${String(failure.cause)}`;
        sendError(res, 'auth_unavailable', { ...headers, 'retry-after': '1' });
        return 'auth_unavailable';
      }
      if (!(failure instanceof RateLimitUnavailableError)) throw failure;
      trace.degraded = true;
      sendError(res, 'rate_limit_unavailable', { ...headers, 'retry-after': '1' });
      return 'rate_limit_unavailable';
    }
    // Revoked, found in the limit's own round trip: the caller answers as for any refused key.
    if (decision.revoked === true) return REVOKED;
    Object.assign(headers, rateLimitHeaders(decision));
    if (decision.degraded === true) trace.degraded = true;
    if (decision.allowed) return undefined;
    if (decision.banned) {
      sendError(res, 'key_banned', headers, `This API key is banned for ${headers['retry-after']} s for sending requests while rate limited.`);
      return 'key_banned';
    }
    if (decision.retryAt === undefined) {
      sendError(res, 'rate_limited', headers, 'This request exceeds what the plan can ever admit; retrying will not help.');
      return 'rate_limited';
    }
    sendError(res, 'rate_limited', headers);
    return 'rate_limited';
  }

  async function handle(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>, trace: Trace): Promise<string> {
    const url = req.url ?? '/';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const method = req.method ?? 'GET';

    if (path === '/healthz') return reply(res, 200, { status: 'ok' }, headers, 'health');
    if (path === '/readyz') {
      const checks = [{ name: 'upstream', ready: () => upstream.ready() }, ...(deps.readiness ?? [])];
      const results = await Promise.all(checks.map(async (check) => [check.name, await check.ready()] as const));
      const down = results.filter(([, ok]) => !ok).map(([name]) => name);
      if (down.length === 0) return reply(res, 200, { status: 'ready' }, headers, 'health');
      sendError(res, 'not_ready', headers, `Not reachable: ${down.join(', ')}.`);
      return 'health';
    }
    if (path === DEPRECATION_NOTES_PATH && (method === 'GET' || method === 'HEAD') && config.deprecationDocUrl === undefined) {
      res.writeHead(200, { ...headers, 'content-type': 'text/markdown; charset=utf-8', 'content-length': Buffer.byteLength(notes) });
      res.end(notes);
      return 'docs';
    }

    if (cors !== undefined) {
      const verdict = cors(method, path, req.headers);
      if (verdict.kind === 'preflight') {
        res.writeHead(204, { ...headers, ...verdict.headers });
        res.end();
        return 'preflight';
      }
      if (verdict.kind === 'refused') {
        sendError(res, 'origin_not_allowed', headers, `Browsers on ${verdict.origin} may not call this API (CORS_ORIGINS).`);
        return 'origin_not_allowed';
      }
      if (verdict.kind === 'allowed') Object.assign(headers, verdict.headers);
    }

    const client = clientView(req, config.trustProxy);
    const limitAnonymous = async () =>
      rateLimiting === undefined ? undefined : limit(res, () => rateLimiting.forAnonymous(client.ip), headers, trace);

    const match = matchRoute(method, path);
    if (match.kind !== 'operation') {
      const refused = await limitAnonymous();
      if (refused !== undefined) return refused;
    }
    if (match.kind === 'not_found') return error(res, 'not_found', headers);
    if (match.kind === 'method_not_allowed') {
      sendError(res, 'method_not_allowed', { ...headers, allow: match.allow }, `${method} is not allowed here; allowed: ${match.allow}.`);
      return 'method_not_allowed';
    }
    const { operation } = match;
    const { deprecation } = operation;
    if (deprecation !== undefined) Object.assign(headers, deprecationHeaders(deprecation, docUrl));

    let identity: Identity | undefined;
    if (authenticate !== undefined && operation.requiresAuth) {
      // A client already refused under the anonymous limit gets no signature checks for new keys
      // until that refusal lapses (at most a second): key guessing costs it, not the gateway.
      let refusal: RateDecision | undefined;
      const mayVerify = rateLimiting === undefined ? undefined : () => (refusal = rateLimiting.anonymousRefusal(client.ip)) === undefined;
      const auth = await authenticate(req.headers.authorization, mayVerify);
      if (auth.kind === 'throttled') {
        trace.authFailure = 'not verified: the client is over its anonymous limit';
        // A remembered refusal always refuses; the fallback only keeps the types honest.
        return (await limit(res, async () => refusal as RateDecision, headers, trace)) ?? error(res, 'rate_limited', headers);
      }
      if (auth.kind !== 'authenticated') {
        const refused = await limitAnonymous();
        if (refused !== undefined) return refused;
      }
      if (auth.kind === 'unavailable') {
        trace.authFailure = auth.reason;
        sendError(res, 'auth_unavailable', { ...headers, 'retry-after': '1' });
        return 'auth_unavailable';
      }
      if (auth.kind === 'rejected') {
        trace.authFailure = auth.reason;
        if (auth.keyId !== undefined) trace.keyId = auth.keyId;
        sendError(res, 'unauthorized', { ...headers, 'www-authenticate': auth.tokenSent ? 'Bearer error="invalid_token"' : 'Bearer' });
        return 'unauthorized';
      }
      identity = auth.identity;
      trace.keyId = identity.keyId;
      trace.subject = identity.subject;
    }
    if (rateLimiting !== undefined) {
      const verified = identity;
      const refused = await (verified === undefined ? limitAnonymous() : limit(res, () => rateLimiting.forIdentity(verified), headers, trace));
      if (refused === REVOKED) {
        trace.authFailure = 'revoked';
        const anonymous = await limitAnonymous();
        if (anonymous !== undefined) return anonymous;
        sendError(res, 'unauthorized', { ...headers, 'www-authenticate': 'Bearer error="invalid_token"' });
        return 'unauthorized';
      }
      if (refused !== undefined) return refused;
    }

    if (deprecation !== undefined) {
      if (config.enforceSunset && isPastSunset(deprecation, now())) {
        const successor = deprecation.successor === undefined ? '' : ` Use GET ${deprecation.successor} instead.`;
        sendError(res, 'gone', headers, `${operation.operationId} was removed on ${deprecation.sunset?.toUTCString()}.${successor}`);
        return 'gone';
      }
    }

    let body: Buffer | undefined;
    try {
      body = await readBody(req, config.bodyLimitBytes);
    } catch (failure) {
      if (!(failure instanceof BodyTooLargeError)) throw failure;
      // The unread rest of the body makes the connection unusable.
      sendError(res, 'payload_too_large', { ...headers, connection: 'close' }, failure.message);
      return 'payload_too_large';
    }
    // A method that carries a body gets an explicit empty one, never Node's empty chunked message.
    if (body === undefined && method !== 'GET' && method !== 'HEAD') body = Buffer.alloc(0);
    const outcome = await upstream.forward({
      req,
      res,
      // The backend's base path may differ from the public one (`/v1/pets` → `/pets`).
      path: upstreamBase === undefined ? url : rebase(url, operation.basePath, upstreamBase),
      headers: upstreamHeaders(req.headers, client, headers['x-request-id'] as string, body?.length, identity, config.upstream.forwardAuthorization),
      body,
      responseHeaders: headers,
    });
    if (outcome.kind === 'failed') {
      logger.warn({ err: outcome.cause, requestId: headers['x-request-id'] }, outcome.code);
      return error(res, outcome.code, headers);
    }
    return outcome.kind;
  }

  const options: ServerOptions = {
    headersTimeout: config.server.headersTimeoutMs,
    requestTimeout: config.server.requestTimeoutMs,
    maxHeaderSize: config.server.maxHeaderSize,
    keepAliveTimeout: config.server.keepAliveTimeoutMs,
    // How often Node looks for requests past headersTimeout/requestTimeout (default 30 s).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, config.server.headersTimeoutMs / 2)),
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
      requestArrived();
      const started = performance.now();
      const headers: Record<string, string> = { 'x-request-id': requestIdOf(req.headers['x-request-id']) };
      const trace: Trace = {};
      handle(req, res, headers, trace)
        .catch((failure: unknown) => {
          if (req.socket.destroyed && !res.headersSent) {
            res.destroy(); // the client left mid-request (an aborted upload, say): not a gateway bug
            return 'client_gone';
          }
          logger.error({ err: failure, requestId: headers['x-request-id'] }, 'request failed');
          try {
            if (res.headersSent) res.destroy();
            else sendError(res, 'internal_error', headers);
          } catch {
            res.destroy(); // a header the operator configured may not be sendable; never crash for it
          }
          return 'internal_error';
        })
        .then((outcome) => {
          logger.info({
            requestId: headers['x-request-id'],
            method: req.method,
            url: req.url,
            status: res.statusCode,
            outcome,
            ...trace,
            ms: Math.round((performance.now() - started) * 100) / 100,
          });
        });
  };
  const server = config.tls === undefined ? createServer(options, onRequest) : createTlsServer({ ...options, ...readTlsFiles(config.tls) }, onRequest);

  /**
   * Headers for an answer Node's parser made (431, 400, 408): a request whose headers were too
   * large is still charged to its address's anonymous limit and shown its state, and told of its
   * operation's deprecation when the request line says which one it was.
   */
  async function parserAnswerHeaders(kind: ClientErrorKind, error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): Promise<Record<string, string>> {
    const headers: Record<string, string> = {};
    if (kind !== 'headers_too_large') return headers;
    const line = /^([A-Z]+) (\/[^ ?]*)/.exec(error.rawPacket?.toString('latin1', 0, 2048) ?? '');
    const match = line === null ? undefined : matchRoute(line[1] as string, line[2] as string);
    if (match?.kind === 'operation' && match.operation.deprecation !== undefined) Object.assign(headers, deprecationHeaders(match.operation.deprecation, docUrl));
    const ip = (socket as Socket).remoteAddress;
    if (rateLimiting !== undefined && ip !== undefined) {
      try {
        Object.assign(headers, rateLimitHeaders(await rateLimiting.forAnonymous(ip)));
      } catch {
        // The limiter is unavailable: the 431 goes out without its state rather than not at all.
      }
    }
    return headers;
  }
  server.on('clientError', createClientErrorHandler(errorBody, parserAnswerHeaders));
  return server;
}

/** The PEM certificate chain and key of the gateway's own listener, named by their settings when unreadable. */
function readTlsFiles(tls: NonNullable<GatewayConfig['tls']>): { cert: Buffer; key: Buffer } {
  const read = (setting: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(`${setting} ${file}: ${(error as Error).message}`);
    }
  };
  return { cert: read('TLS_CERT_FILE', tls.certFile), key: read('TLS_KEY_FILE', tls.keyFile) };
}

/** `url` with the public base path `from` replaced by the backend's `to` (`/` for none). */
export function rebase(url: string, from: string, to: string): string {
  const rest = url.slice(from.length);
  return to === '/' ? rest : `${to}${rest}`;
}

/** `limit`'s answer for a key found revoked: nothing was sent yet. */
const REVOKED = 'revoked';

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>, outcome: string): string {
  sendJson(res, status, body, headers);
  return outcome;
}

function error(res: ServerResponse, code: Parameters<typeof sendError>[1], headers: Record<string, string>): string {
  sendError(res, code, headers);
  return code;
}
