import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createClientErrorHandler, type ClientErrorKind } from '@animal-store/http-kit';
import type { GatewayConfig } from '../config/index.js';
import { deprecationHeaders } from '../deprecation/index.js';
import { errorBody } from '../errors.js';
import { publishRequestEnd, publishRequestStart, UNMATCHED_ROUTE, type RequestRecord } from '../events/index.js';
import { requestIdOf } from '../http/request-id.js';
import { rateLimitHeaders, type RateDecision } from '../ratelimit/index.js';
import type { RouteMatch } from '../routing/index.js';

/**
 * The gateway's `node:http` (or `node:https`) server with its timeouts, not yet listening. Answers
 * Node's parser makes (400, 408, 431) get the Error body and an `X-Request-Id` (the one their
 * access-log line has), and for a 431 the anonymous limit's state and the operation's deprecation.
 */
export function createListener(
  config: GatewayConfig,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
  parts: {
    readonly matchRoute: (method: string, path: string) => RouteMatch;
    /** The key guard's anonymous decision (it remembers refusals); absent with RATE_LIMITS=off. */
    readonly decideAnonymous: ((ip: string) => Promise<RateDecision>) | undefined;
    readonly docUrl: string;
    /** Names this gateway in the events of the parser's answers, as in every other request's. */
    readonly source: object;
  },
): Server | TlsServer {
  const options: ServerOptions = {
    headersTimeout: config.server.headersTimeoutMs,
    requestTimeout: config.server.requestTimeoutMs,
    maxHeaderSize: config.server.maxHeaderSize,
    keepAliveTimeout: config.server.keepAliveTimeoutMs,
    // How often Node looks for requests past headersTimeout/requestTimeout (default 30 s).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, config.server.headersTimeoutMs / 2)),
  };
  const server = config.tls === undefined ? createServer(options, onRequest) : createTlsServer({ ...options, ...readTlsFiles(config.tls) }, onRequest);

  /** What the parser's answer was charged, by socket: its access line shows it. */
  const charged = new WeakMap<Duplex, RateDecision>();
  /** The request id a parser's answer carried, by socket: its access line has the same. */
  const answerIds = new WeakMap<Duplex, string>();

  /**
   * Headers for an answer Node's parser made (431, 400, 408): a request whose headers were too
   * large is still charged to its address's anonymous limit and shown its state, and told of its
   * operation's deprecation when the request line says which one it was.
   */
  async function parserAnswerHeaders(
    kind: ClientErrorKind,
    error: NodeJS.ErrnoException & { rawPacket?: Buffer },
    socket: Duplex,
  ): Promise<Record<string, string>> {
    // A new id, as for any request without a well-formed one of its own: the parser did not read
    // the client's (or refused its headers), and the access line and the answer must agree.
    const id = requestIdOf(undefined);
    answerIds.set(socket, id);
    const headers: Record<string, string> = { 'x-request-id': id };
    if (kind !== 'headers_too_large') return headers;
    const line = REQUEST_LINE.exec(error.rawPacket?.toString('latin1', 0, 2048) ?? '');
    const match = line === null ? undefined : parts.matchRoute(line[1] as string, line[2] as string);
    if (match?.kind === 'operation' && match.operation.deprecation !== undefined)
      Object.assign(headers, deprecationHeaders(match.operation.deprecation, parts.docUrl));
    const ip = (socket as Socket).remoteAddress;
    if (parts.decideAnonymous !== undefined && ip !== undefined) {
      try {
        const decision = await parts.decideAnonymous(ip);
        charged.set(socket, decision);
        Object.assign(headers, rateLimitHeaders(decision));
      } catch {
        // The limiter is unavailable: the 431 goes out without its state rather than not at all.
      }
    }
    return headers;
  }
  /**
   * A parser's answer ends like every other request: a request-start and a request-end event, so
   * it has its access-log line and its place in the metrics. Its method and target are the
   * request line's when the parser got that far (`-` otherwise), its route `unmatched` but for a
   * 431 on an operation's path (`routeOf`).
   */
  function parserAnswered(kind: ClientErrorKind, status: number, error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex): void {
    const line = REQUEST_LINE.exec(error.rawPacket?.toString('latin1', 0, 2048) ?? '');
    const decision = charged.get(socket);
    const request: RequestRecord = {
      source: parts.source,
      id: answerIds.get(socket) ?? requestIdOf(undefined),
      method: line?.[1] ?? '-',
      url: line === null ? '-' : `${line[2] as string}${line[3] ?? ''}`,
      startedAt: performance.now(),
      route: kind === 'headers_too_large' && line !== null ? routeOf(parts.matchRoute(line[1] as string, line[2] as string)) : UNMATCHED_ROUTE,
      outcome: kind,
      ...(decision === undefined ? {} : { plan: 'anonymous', decision: decision.banned ? 'banned' : decision.allowed ? 'allowed' : 'limited' }),
    };
    publishRequestStart({ request, headers: {} });
    publishRequestEnd({ request, status, durationMs: performance.now() - request.startedAt });
  }
  server.on('clientError', createClientErrorHandler(errorBody, parserAnswerHeaders, parserAnswered));
  return server;
}

/**
 * The route label of a parser's answer: the template of the operation's path when the request line
 * names one. Only for a 431 (headers too large, the line itself whole and valid); a 400's line may
 * be what the parser refused, and a 408's raw packet is not given.
 */
function routeOf(match: RouteMatch): string {
  if (match.kind === 'operation') return match.operation.template;
  return match.kind === 'method_not_allowed' ? match.template : UNMATCHED_ROUTE;
}

/** A request line as far as the parser's raw packet holds it: method, path, query. */
const REQUEST_LINE = /^([A-Z]+) (\/[^ ?]*)(\?[^ ]*)?/;

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
