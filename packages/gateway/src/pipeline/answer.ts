import type { ErrorCode } from '../errors.js';
import type { RateDecision } from '../ratelimit/index.js';

/** What a step answers with. Everything but `proxied` and `client_gone` is written by `writeAnswer` (`writer.ts`). */
export type Answer =
  /** The Error body of `code`, with the exchange's headers and these. */
  | {
      readonly kind: 'error';
      readonly code: ErrorCode;
      readonly message?: string;
      readonly headers?: Readonly<Record<string, string>>;
      readonly outcome?: Outcome;
    }
  /** A limit refused (`limited` or `banned`): the writer derives the code, headers, body and message from the decision. */
  | { readonly kind: 'limited'; readonly decision: RateDecision }
  /** /healthz and /readyz. */
  | { readonly kind: 'status'; readonly status: number; readonly body: unknown }
  /** The deprecation notes the gateway serves itself. */
  | { readonly kind: 'document'; readonly contentType: string; readonly text: string }
  /** A CORS preflight, 204 with these headers. */
  | { readonly kind: 'preflight'; readonly headers: Readonly<Record<string, string>> }
  /** The API document, the reference page and its renderer: a body made once, or 304. */
  | { readonly kind: 'asset'; readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: Buffer | undefined }
  /** A JSON answer of an operation the gateway answers itself (`GET /v1/usage`). */
  | { readonly kind: 'json'; readonly status: number; readonly body: unknown; readonly outcome: Outcome }
  /** The upstream's answer, already streamed by the proxy engine. */
  | { readonly kind: 'proxied'; readonly status: number }
  /** The client left before an answer could be sent. */
  | { readonly kind: 'client_gone' };

/** How a request ended, for logs and metrics: an error code, or what kind of answer it got. */
export type Outcome = ErrorCode | 'health' | 'docs' | 'usage' | 'preflight' | 'proxied' | 'client_gone';

/** The shorthand for the most common answer. */
export function refuse(code: ErrorCode, message?: string, headers?: Readonly<Record<string, string>>): Answer {
  return { kind: 'error', code, ...(message === undefined ? {} : { message }), ...(headers === undefined ? {} : { headers }) };
}
