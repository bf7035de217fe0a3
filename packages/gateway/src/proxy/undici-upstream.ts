import { Client, Pool, type Dispatcher } from 'undici';
import type { LinkRewriter } from '../http/link-rewrite.js';
import { downstreamHeaders } from '../http/upstream-headers.js';
import {
  BadUpstreamStatusError,
  clientIsGone,
  READY_TIMEOUT_MS,
  UpstreamTimeoutError,
  withinReadyBound,
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
  const connection = {
    pipelining: 1,
    keepAliveTimeout: options.idleTimeoutMs,
    keepAliveMaxTimeout: options.idleTimeoutMs,
    keepAliveTimeoutThreshold: 1000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connect: { timeout: options.timeoutMs },
  };
  const exchanges: ExchangeSettings = { timeoutMs: options.timeoutMs, rewriteLinks: options.linkRewriter, refused: false };
  const pool = new Pool(options.target.origin, {
    ...connection,
    connections: options.maxSockets,
    factory: (origin, clientOptions) => new RefusalSafeClient(origin, clientOptions, exchanges),
  });
  // The readiness probe's own connection: requests that hold every pooled one (a slow upstream)
  // cannot keep /readyz waiting, and the probe takes none of theirs.
  const probe = new Client(options.target.origin, {
    ...connection,
    headersTimeout: READY_TIMEOUT_MS,
    bodyTimeout: READY_TIMEOUT_MS,
    connect: { timeout: READY_TIMEOUT_MS },
  });
  const basePath = options.target.pathname.replace(/\/+$/, '');

  return {
    forward(request) {
      // The client may have left while the pipeline awaited auth or limits: send nothing upstream.
      if (clientIsGone(request)) return Promise.resolve({ kind: 'client_gone' });
      return new Promise<ForwardOutcome>((settle) => {
        const handler = new UpstreamExchange(request, exchanges, settle);
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
          handler.finish({ kind: 'failed', code: 'bad_gateway', cause: error });
        }
      });
    },

    ready() {
      return withinReadyBound(async () => {
        const { statusCode, body } = await probe.request({
          path: options.readyPath, // on the upstream's origin, as the http-proxy engine asks it
          method: 'GET',
          signal: AbortSignal.timeout(READY_TIMEOUT_MS),
        });
        await body.dump();
        return statusCode < 500;
      });
    },

    close() {
      pool.destroy().catch(() => {});
      probe.destroy().catch(() => {});
    },
  };
}

/** What every exchange of one upstream shares. */
interface ExchangeSettings {
  readonly timeoutMs: number;
  readonly rewriteLinks: LinkRewriter | undefined;
  /** Set when undici refuses a request outright, as it dispatches it (see `RefusalSafeClient`). */
  refused: boolean;
}

/**
 * A pooled connection that stays in use when it refuses a request. undici's `Pool` takes a
 * connection out of use whenever its `dispatch` returns false, until it emits `'drain'`. A request
 * the connection refuses outright (its `Request` cannot be built: a header value or a path undici
 * rejects) returns false too, but nothing was queued, so no `'drain'` ever comes: the connection
 * was lost for good, and after UPSTREAM_MAX_SOCKETS such requests every request waited out its
 * timeout (undici 7.30). Here a refused dispatch answers true: the connection is as free as before.
 */
class RefusalSafeClient extends Client {
  constructor(
    origin: URL | string,
    options: Pool.Options,
    private readonly exchanges: ExchangeSettings,
  ) {
    super(origin, options);
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.exchanges.refused = false;
    // The refusal, when there is one, reaches the handler synchronously, within this call.
    const accepted = super.dispatch(options, handler);
    if (accepted || !this.exchanges.refused) return accepted;
    this.exchanges.refused = false;
    return true;
  }
}

/**
 * One request's exchange with the upstream, as undici's handler: one object per request, its
 * methods shared (no closures made per request but the client-gone listener).
 */
class UpstreamExchange implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | undefined;
  #settled = false;
  #started = false;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly request: ForwardRequest,
    private readonly settings: ExchangeSettings,
    private readonly settle: (outcome: ForwardOutcome) => void,
  ) {
    // undici's own timeouts start once the request is on a socket; this one starts now, so a
    // request queued behind busy connections (UPSTREAM_MAX_SOCKETS) is a 504 in time too.
    this.#timer = setTimeout(timedOut, settings.timeoutMs, this);
    request.res.once('close', () => {
      // The client went away before the answer was complete: stop the upstream work too.
      if (!request.res.writableFinished) this.#controller?.abort(new ClientGoneError());
      this.finish({ kind: 'client_gone' });
    });
  }

  finish(outcome: ForwardOutcome): void {
    clearTimeout(this.#timer);
    if (this.#settled) return;
    this.#settled = true;
    this.settle(outcome);
  }

  timedOut(): void {
    const error = new UpstreamTimeoutError(this.settings.timeoutMs);
    this.finish({ kind: 'failed', code: 'upstream_timeout', cause: error });
    this.#controller?.abort(error);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Answered already (timed out while queued) or nobody to answer: send nothing.
    if (this.#settled || this.request.res.destroyed)
      controller.abort(this.#settled ? new UpstreamTimeoutError(this.settings.timeoutMs) : new ClientGoneError());
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number): void {
    if (status >= 100 && status < 200) return; // interim answers (103, say): not passed on
    if (this.#settled) {
      controller.abort(new UpstreamTimeoutError(this.settings.timeoutMs)); // the gateway answered 504 already
      return;
    }
    if (status < 100 || status > 599) {
      const error = new BadUpstreamStatusError(status);
      controller.abort(error);
      this.finish({ kind: 'failed', code: 'bad_gateway', cause: error });
      return;
    }
    const { res } = this.request;
    if (res.destroyed) {
      controller.abort(new ClientGoneError());
      return;
    }
    try {
      res.writeHead(status, downstreamHeaders((controller.rawHeaders ?? []) as (Buffer | string)[], this.request.responseHeaders, this.settings.rewriteLinks));
    } catch (error) {
      controller.abort(error as Error);
      this.finish({ kind: 'failed', code: 'bad_gateway', cause: error });
      return;
    }
    this.#started = true;
    this.finish({ kind: 'proxied', status });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.request.res.write(chunk)) return;
    controller.pause();
    this.request.res.once('drain', () => controller.resume());
  }

  onResponseEnd(): void {
    this.request.res.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    // Never started: undici refused the request as it was dispatched (or lost its connection
    // before sending it). The first leaves the connection as it was: `RefusalSafeClient` reads this.
    if (this.#controller === undefined) this.settings.refused = true;
    if (this.#started) {
      this.request.res.destroy(); // the answer is cut: the client must not take it for a whole one
      return;
    }
    if (error instanceof ClientGoneError) return this.finish({ kind: 'client_gone' });
    const code = TIMEOUT_CODES.has((error as { code?: string }).code ?? '') ? 'upstream_timeout' : 'bad_gateway';
    this.finish({ kind: 'failed', code, cause: error });
  }
}

function timedOut(exchange: UpstreamExchange): void {
  exchange.timedOut();
}
