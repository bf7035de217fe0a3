import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable, type Duplex } from 'node:stream';
import httpProxy from 'http-proxy';
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

interface Exchange {
  readonly request: ForwardRequest;
  readonly settle: (outcome: ForwardOutcome) => void;
  proxyReq: ClientRequest | undefined;
  timer: NodeJS.Timeout | undefined;
  settled: boolean;
  timedOut: boolean;
}

/**
 * The http-proxy engine (`PROXY_ENGINE=http-proxy`), on http-proxy 1.18.1 — the only file that
 * imports it. Hardening on top of it:
 * - its `deleteLength` pass is removed (CVE-2026-29057: it turned a chunked DELETE/OPTIONS into
 *   `Content-Length: 0` and still piped the body, smuggling a second request); the pipeline sends
 *   every body buffered with an exact Content-Length instead;
 * - responses are written here (`selfHandleResponse`), without hop-by-hop headers;
 * - error handlers on the proxy, the upstream request and both responses; a client that goes away
 *   destroys the upstream request; a slow upstream is cut at `timeoutMs`.
 */
export function createHttpProxyUpstream(options: UpstreamOptions): Upstream {
  const secure = options.target.protocol === 'https:';
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, timeout: options.idleTimeoutMs, scheduling: 'lifo' as const };
  const agent = secure ? new HttpsAgent(agentOptions) : new Agent(agentOptions);
  // The readiness probe's own connection: requests that hold every pooled socket (a slow
  // upstream) cannot keep /readyz waiting, and the probe takes none of theirs.
  const probeOptions = { ...agentOptions, maxSockets: 1 };
  const probeAgent = secure ? new HttpsAgent(probeOptions) : new Agent(probeOptions);
  const proxy = httpProxy.createProxyServer({
    target: options.target.href,
    agent,
    selfHandleResponse: true,
    changeOrigin: true,
    xfwd: false,
    ws: false,
  });
  const server = proxy as unknown as { webPasses: { name: string }[] };
  server.webPasses = server.webPasses.filter((pass) => pass.name !== 'deleteLength');
  const exchanges = new WeakMap<IncomingMessage, Exchange>();

  proxy.on('proxyReq', (proxyReq, req) => {
    const exchange = exchanges.get(req);
    if (exchange === undefined || exchange.settled) {
      proxyReq.destroy();
      return;
    }
    exchange.proxyReq = proxyReq;
    // A 101 to a request that asked for no upgrade is no answer: Node hands it to 'upgrade'
    // listeners only, and without one the exchange would wait out the timeout (a 504).
    proxyReq.once('upgrade', (_res: IncomingMessage, socket: Duplex) => {
      socket.destroy();
      finish(exchange, { kind: 'failed', code: 'bad_gateway', cause: new BadUpstreamStatusError(101) });
    });
  });

  proxy.on('proxyRes', (proxyRes, req, res) => {
    const exchange = exchanges.get(req);
    if (exchange === undefined || exchange.settled) {
      proxyRes.destroy();
      return;
    }
    if (res.destroyed) {
      // The client left while the upstream was answering: free the pooled socket now.
      proxyRes.destroy();
      return;
    }
    const status = proxyRes.statusCode ?? 0;
    if (status < 100 || status > 599) {
      // Node's client accepts any three digits; writeHead would throw on them. Not a valid answer.
      proxyRes.destroy();
      finish(exchange, { kind: 'failed', code: 'bad_gateway', cause: new BadUpstreamStatusError(status) });
      return;
    }
    const { responseHeaders } = exchange.request;
    const headers = downstreamHeaders(proxyRes.rawHeaders, responseHeaders, options.linkRewriter);
    try {
      res.writeHead(status, headers);
    } catch (error) {
      proxyRes.destroy();
      finish(exchange, { kind: 'failed', code: 'bad_gateway', cause: error });
      return;
    }
    // pipe, not stream.pipeline: pipeline builds an AbortController per call, a measurable cost here.
    proxyRes.once('error', () => res.destroy());
    proxyRes.pipe(res);
    finish(exchange, { kind: 'proxied', status });
  });

  // With a callback on every call http-proxy reports errors there; this only guards the process.
  proxy.on('error', () => {});

  function finish(exchange: Exchange, outcome: ForwardOutcome): void {
    // The timeout covers the wait for response headers only; a streaming body may take longer.
    clearTimeout(exchange.timer);
    if (exchange.settled) return;
    exchange.settled = true;
    exchange.settle(outcome);
  }

  return {
    forward(request) {
      const { req, res } = request;
      // The client may have left while the pipeline awaited auth or limits: send nothing upstream.
      if (clientIsGone(request)) return Promise.resolve({ kind: 'client_gone' });
      return new Promise((settle) => {
        const exchange: Exchange = { request, settle, proxyReq: undefined, timer: undefined, settled: false, timedOut: false };
        exchanges.set(req, exchange);

        exchange.timer = setTimeout(() => {
          exchange.timedOut = true;
          exchange.proxyReq?.destroy();
          finish(exchange, { kind: 'failed', code: 'upstream_timeout', cause: new UpstreamTimeoutError(options.timeoutMs) });
        }, options.timeoutMs);
        res.once('close', () => {
          // The client went away before the answer was complete: stop the upstream work too.
          if (!res.writableFinished) exchange.proxyReq?.destroy();
          finish(exchange, { kind: 'client_gone' });
        });

        req.url = request.path;
        req.headers = request.headers as IncomingMessage['headers'];
        // Without a body the (already ended) request itself is piped; a buffered body replaces it.
        const webOptions = request.body === undefined ? {} : { buffer: Readable.from([request.body]) };
        try {
          proxy.web(req, res, webOptions, (error: Error) => {
            if (res.headersSent) {
              res.destroy();
              return;
            }
            finish(
              exchange,
              exchange.timedOut ? { kind: 'failed', code: 'upstream_timeout', cause: error } : { kind: 'failed', code: 'bad_gateway', cause: error },
            );
          });
        } catch (error) {
          // Node refused the request as it built it (a header value it cannot send, ERR_INVALID_CHAR),
          // before the agent gave it a socket: nothing went upstream, no socket is held.
          finish(exchange, { kind: 'failed', code: 'bad_gateway', cause: error });
        }
      });
    },

    ready() {
      return withinReadyBound(
        () =>
          new Promise((resolve) => {
            const url = new URL(options.readyPath, options.target);
            const probe = (secure ? httpsRequest : httpRequest)(url, { agent: probeAgent, timeout: READY_TIMEOUT_MS }, (res: IncomingMessage) => {
              res.resume();
              resolve((res.statusCode ?? 500) < 500);
            });
            probe.on('timeout', () => probe.destroy(new UpstreamTimeoutError(READY_TIMEOUT_MS)));
            probe.on('error', () => resolve(false));
            probe.end();
          }),
      );
    },

    close() {
      proxy.close();
      agent.destroy();
      probeAgent.destroy();
    },
  };
}
