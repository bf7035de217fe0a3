import { Client, Pool, type Dispatcher } from 'undici';
import { clientIsGone, READY_TIMEOUT_MS, withinReadyBound, type ForwardOutcome, type Upstream, type UpstreamOptions } from './upstream.js';
import { UpstreamExchange, type ExchangeSettings } from './undici-exchange.js';

/**
 * The default proxy engine (`PROXY_ENGINE=undici`): a keep-alive undici `Pool` per upstream, the
 * only file that runs undici (`undici-exchange.ts` is one request's exchange, as its handler).
 * What it guarantees, like the http-proxy engine:
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
