import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { CoreConfig } from './config.js';
import { createClientErrorHandler, limitSendTime } from '@animal-store/http-kit';
import { errorBody, HttpError } from './errors.js';
import { sendError, sendReply } from './http/reply.js';
import { buildOpenApiDocument, serializeDocument } from './openapi/index.js';
import { createRouter } from './routes/router.js';
import { StoreUnavailableError, type PetStore } from './store/index.js';

export interface CoreDeps {
  readonly store: PetStore;
  readonly logger: Logger;
}

const READY_TIMEOUT_MS = 1000;

/**
 * The pets core as a `node:http` server, not yet listening. Every answer, including every error,
 * is JSON; a malformed request is a 4xx, never a 500 or a crash.
 */
export function createCoreServer(config: CoreConfig, deps: CoreDeps): Server {
  const { store, logger } = deps;
  const match = createRouter(store, config, serializeDocument(buildOpenApiDocument()));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const query = queryStart === -1 ? '' : url.slice(queryStart + 1);
    try {
      if (path === '/healthz') return sendReply(res, { status: 200, body: { status: 'ok' } });
      if (path === '/readyz') return sendReply(res, await readiness(store));
      const { handler, params } = match(req.method ?? 'GET', path);
      sendReply(res, await handler({ req, query, params }));
    } catch (error) {
      if (res.headersSent || res.destroyed) {
        res.destroy();
        return;
      }
      if (error instanceof HttpError) return sendError(res, error);
      if (error instanceof StoreUnavailableError) {
        logger.warn({ err: error.cause, path }, 'store unavailable');
        return sendError(res, new HttpError('store_unavailable', undefined, { 'retry-after': '1' }));
      }
      logger.error({ err: error, method: req.method, path }, 'request failed');
      sendError(res, new HttpError('internal_error'));
    }
  }

  const server = createServer(
    { keepAliveTimeout: config.keepAliveTimeoutMs, headersTimeout: 10_000, requestTimeout: 30_000 },
    (req, res) => void handle(req, res),
  );
  server.on('clientError', createClientErrorHandler(errorBody));
  // A client that stops reading its answer holds a socket 30 s at most (Node bounds the rest).
  limitSendTime(server);
  return server;
}

async function readiness(store: PetStore) {
  try {
    await Promise.race([store.ping(), new Promise((_, reject) => setTimeout(reject, READY_TIMEOUT_MS, new Error('ping timed out')).unref())]);
    return { status: 200, body: { status: 'ready' } };
  } catch {
    return { status: 503, body: new HttpError('not_ready', 'The pet store is not reachable.').toBody() };
  }
}
