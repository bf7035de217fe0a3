import { Pool, type Dispatcher } from 'undici';
import { downstreamHeaders } from '../http/upstream-headers.js';
import {
  BadUpstreamStatusError,
  clientIsGone,
  READY_TIMEOUT_MS,
  UpstreamTimeoutError,
  type ForwardOutcome,
  type ForwardRequest,
  type Upstream,
  type UpstreamOptions,
} from './upstream.js';

/** Why an exchange was cut from our side: the client went away before its answer was complete. */
class ClientGoneError extends Error {
  constructor() {
    super('the client went away');
    this.name = 'ClientGoneError';
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * The default proxy engine (`PROXY_ENGINE=undici`): a keep-alive undici `Pool` per upstream, the
 * only file that imports undici. What it guarantees, like the http-proxy engine:
 * - the body goes upstream as the pipeline buffered it, with its exact `Content-Length` (undici
 *   checks the two agree), never chunked, so no request can hide inside another;
 * - `Host` is the upstream's; the answer is streamed back with backpressure, without hop-by-hop
 *   headers, with the gateway's headers replacing the upstream's of the same name;
 * - a client that goes away aborts the upstream exchange (its socket is not reused);
 * - an upstream that takes `timeoutMs` to connect or to send its headers is a 504; one silent that
 *   long within its body has its answer cut; a status outside 100–599 is a 502; 1xx interim
 *   answers are not passed on.
 * Idle sockets close after the upstream's `Keep-Alive: timeout` less a second, or
 * `idleTimeoutMs` when it sends none, whichever is sooner.
 */
export function createUndiciUpstream(options: UpstreamOptions): Upstream {
  const pool = new Pool(options.target.origin, {
    connections: options.maxSockets,
    pipelining: 1,
    keepAliveTimeout: options.idleTimeoutMs,
    keepAliveMaxTimeout: options.idleTimeoutMs,
    keepAliveTimeoutThreshold: 1000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connect: { timeout: options.timeoutMs },
  });
  const basePath = options.target.pathname.replace(/\/+$/, '');

  return {
    forward(request) {
      const { res } = request;
      // The client may have left while the pipeline awaited auth or limits: send nothing upstream.
      if (clientIsGone(request)) return Promise.resolve({ kind: 'client_gone' });
      return new Promise<ForwardOutcome>((settle) => {
        let controller: Dispatcher.DispatchController | undefined;
        let settled = false;
        let started = false;
        const finish = (outcome: ForwardOutcome) => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          settle(outcome);
        };
        // undici's own timeouts start once the request is on a socket; this one starts now, so a
        // request queued behind busy connections (UPSTREAM_MAX_SOCKETS) is a 504 in time too.
        const timer = setTimeout(() => {
          const error = new UpstreamTimeoutError(options.timeoutMs);
          finish({ kind: 'failed', code: 'upstream_timeout', cause: error });
          controller?.abort(error);
        }, options.timeoutMs);
        const resume = () => controller?.resume();
        res.once('close', () => {
          // The client went away before the answer was complete: stop the upstream work too.
          if (!res.writableFinished) controller?.abort(new ClientGoneError());
          finish({ kind: 'client_gone' });
        });

        const handler: Dispatcher.DispatchHandler = {
          onRequestStart(ctrl) {
            controller = ctrl;
            // Answered already (timed out while queued) or nobody to answer: send nothing.
            if (settled || res.destroyed) ctrl.abort(settled ? new UpstreamTimeoutError(options.timeoutMs) : new ClientGoneError());
          },
          onResponseStart(ctrl, status) {
            if (status >= 100 && status < 200) return; // interim answers (103, say): not passed on
            if (settled) {
              ctrl.abort(new UpstreamTimeoutError(options.timeoutMs)); // the gateway answered 504 already
              return;
            }
            if (status < 100 || status > 599) {
              const error = new BadUpstreamStatusError(status);
              ctrl.abort(error);
              finish({ kind: 'failed', code: 'bad_gateway', cause: error });
              return;
            }
            if (res.destroyed) {
              ctrl.abort(new ClientGoneError());
              return;
            }
            const raw = (ctrl.rawHeaders ?? []) as (Buffer | string)[];
            const names = Object.keys(request.responseHeaders);
            const headers = downstreamHeaders(
              raw.map((part) => part.toString('latin1')),
              new Set(names),
            );
            for (const name of names) headers.push(name, request.responseHeaders[name] as string);
            try {
              res.writeHead(status, headers);
            } catch (error) {
              ctrl.abort(error as Error);
              finish({ kind: 'failed', code: 'bad_gateway', cause: error });
              return;
            }
            started = true;
            finish({ kind: 'proxied', status });
          },
          onResponseData(ctrl, chunk) {
            if (res.write(chunk)) return;
            ctrl.pause();
            res.once('drain', resume);
          },
          onResponseEnd() {
            res.end();
          },
          onResponseError(_ctrl, error) {
            if (started) {
              res.destroy(); // the answer is cut: the client must not take it for a whole one
              return;
            }
            if (error instanceof ClientGoneError) return finish({ kind: 'client_gone' });
            const code = TIMEOUT_CODES.has((error as { code?: string }).code ?? '') ? 'upstream_timeout' : 'bad_gateway';
            finish({ kind: 'failed', code, cause: error });
          },
        };
        try {
          pool.dispatch(
            {
              path: basePath + request.path,
              method: request.req.method as Dispatcher.HttpMethod,
              headers: request.headers as Record<string, string | string[]>,
              body: request.body ?? null,
            },
            handler,
          );
        } catch (error) {
          finish({ kind: 'failed', code: 'bad_gateway', cause: error });
        }
      });
    },

    async ready() {
      try {
        const { statusCode, body } = await pool.request({
          path: options.readyPath, // on the upstream's origin, as the http-proxy engine asks it
          method: 'GET',
          headersTimeout: READY_TIMEOUT_MS,
          bodyTimeout: READY_TIMEOUT_MS,
          // Also while waiting for a free connection.
          signal: AbortSignal.timeout(READY_TIMEOUT_MS),
        });
        await body.dump();
        return statusCode < 500;
      } catch {
        return false;
      }
    },

    close() {
      pool.destroy().catch(() => {});
    },
  };
}
