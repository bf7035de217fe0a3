import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { LinkRewriter } from '../http/link-rewrite.js';

/** How a forward ended, for the pipeline to answer or log. */
export type ForwardOutcome =
  | { readonly kind: 'proxied'; readonly status: number }
  | { readonly kind: 'failed'; readonly code: 'bad_gateway' | 'upstream_timeout'; readonly cause: unknown }
  | { readonly kind: 'client_gone' };

export interface ForwardRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Path and query to request upstream (after the upstream URL's own path, if any). */
  readonly path: string;
  readonly headers: OutgoingHttpHeaders;
  readonly body: Buffer | undefined;
  /** Headers the gateway adds to (and that replace those of) the upstream's response. */
  readonly responseHeaders: Readonly<Record<string, string>>;
}

/** The one thing the pipeline needs of a proxy engine, so the engine can be swapped. */
export interface Upstream {
  /**
   * Sends the request upstream and streams the answer back with hop-by-hop headers removed.
   * Resolves once the answer has started (`proxied`) or the exchange failed; on failure nothing
   * has been written to `res` unless its headers were already sent (then it is destroyed).
   */
  forward(request: ForwardRequest): Promise<ForwardOutcome>;
  /**
   * Resolves true when the upstream answers its readiness path in time with a status below 500:
   * a backend without such a path (404) or that guards it (401) is up and serving all the same.
   */
  ready(): Promise<boolean>;
  close(): void;
}

/** What every engine is built from (the `UPSTREAM_*` settings). */
export interface UpstreamOptions {
  /** The backend; a path here is put in front of every forwarded path. */
  readonly target: URL;
  /** Longest wait for the upstream's response headers, and longest silence within its body. */
  readonly timeoutMs: number;
  /** Idle keep-alive sockets close after this; keep it below the upstream's keep-alive timeout. */
  readonly idleTimeoutMs: number;
  readonly maxSockets: number;
  readonly readyPath: string;
  /** Makes the upstream's `Location` and `Link` public (UPSTREAM_REWRITE_LINKS); absent: left as sent. */
  readonly linkRewriter?: LinkRewriter | undefined;
}

/** How long the readiness probe waits for the upstream. */
export const READY_TIMEOUT_MS = 1000;

/**
 * What `probe` resolves with, or false when it fails or has not answered within READY_TIMEOUT_MS:
 * `/readyz` answers within its bound whatever the upstream or a connection pool does.
 */
export function withinReadyBound(probe: () => Promise<boolean>): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, READY_TIMEOUT_MS, false);
    probe().then(
      (ok) => {
        clearTimeout(timer);
        resolve(ok);
      },
      () => {
        clearTimeout(timer);
        resolve(false);
      },
    );
  });
}

export class UpstreamTimeoutError extends Error {
  constructor(ms: number) {
    super(`upstream did not answer within ${ms} ms`);
    this.name = 'UpstreamTimeoutError';
  }
}

/** The answer of an upstream that is not HTTP (a status outside 100–599 would make writeHead throw). */
export class BadUpstreamStatusError extends Error {
  constructor(status: number) {
    super(`upstream answered with status ${status}`);
    this.name = 'BadUpstreamStatusError';
  }
}

/** True when the client can no longer receive an answer, so nothing should be sent upstream. */
export function clientIsGone({ req, res }: ForwardRequest): boolean {
  // Not req.destroyed: reading the body to its end destroys the request stream itself.
  return req.socket.destroyed || res.destroyed || res.writableEnded;
}
