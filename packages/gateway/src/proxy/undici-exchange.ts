import type { Dispatcher } from 'undici';
import type { LinkRewriter } from '../http/link-rewrite.js';
import { downstreamHeaders } from '../http/upstream-headers.js';
import { BadUpstreamStatusError, UpstreamTimeoutError, type ForwardOutcome, type ForwardRequest } from './upstream.js';

/** Why an exchange was cut from our side: the client went away before its answer was complete. */
class ClientGoneError extends Error {
  constructor() {
    super('the client went away');
    this.name = 'ClientGoneError';
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** What every exchange of one upstream shares. */
export interface ExchangeSettings {
  readonly timeoutMs: number;
  readonly rewriteLinks: LinkRewriter | undefined;
  /** Set when undici refuses a request outright, as it dispatches it (see `RefusalSafeClient`). */
  refused: boolean;
}

/**
 * One request's exchange with the upstream, as undici's handler: one object per request, its
 * methods shared (no closures made per request but the client-gone listener).
 */
export class UpstreamExchange implements Dispatcher.DispatchHandler {
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
