import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

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
  /** Resolves true when the upstream answers its readiness path with a 2xx in time. */
  ready(): Promise<boolean>;
  close(): void;
}
