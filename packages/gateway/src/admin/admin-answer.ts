import type { ServerResponse } from 'node:http';
import { sendJson } from '../http/reply.js';
import { ADMIN_ERRORS, type AdminErrorCode } from './admin-errors.js';

/** What an admin handler answers with; `writeAdminAnswer` writes it. */
export type AdminAnswer =
  | { readonly kind: 'json'; readonly status?: number; readonly body: unknown }
  /** A body of another type (the billing CSV). */
  | { readonly kind: 'text'; readonly contentType: string; readonly body: string; readonly headers?: Readonly<Record<string, string>> }
  | { readonly kind: 'error'; readonly code: AdminErrorCode; readonly message?: string; readonly headers?: Readonly<Record<string, string>> }
  /** The console's files, as made once (see `console-assets.ts`). */
  | { readonly kind: 'asset'; readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: Buffer | undefined }
  /** A relative `Location`: right behind any prefix a reverse proxy adds. */
  | { readonly kind: 'redirect'; readonly location: string };

/** The admin API's data changes with every request: nothing of it is kept by a cache on the way. */
const NO_STORE = { 'cache-control': 'no-store' };

/** The Error body of `code`, with a more specific message when given. */
export const adminError = (code: AdminErrorCode, message?: string, headers?: Readonly<Record<string, string>>): AdminAnswer => ({
  kind: 'error',
  code,
  ...(message === undefined ? {} : { message }),
  ...(headers === undefined ? {} : { headers }),
});

/** Writes `answer`: JSON with an exact length (an unread body closes the connection in bounded time, as the API's answers do). */
export function writeAdminAnswer(res: ServerResponse, answer: AdminAnswer): void {
  switch (answer.kind) {
    case 'json':
      sendJson(res, answer.status ?? 200, answer.body, NO_STORE);
      return;
    case 'text':
      res.writeHead(200, { ...NO_STORE, ...answer.headers, 'content-type': answer.contentType, 'content-length': Buffer.byteLength(answer.body) });
      res.end(res.req.method === 'HEAD' ? undefined : answer.body);
      return;
    case 'error': {
      const { status, message } = ADMIN_ERRORS[answer.code];
      sendJson(res, status, { code: answer.code, message: answer.message ?? message, status }, { ...NO_STORE, ...answer.headers });
      return;
    }
    case 'asset':
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
      return;
    case 'redirect':
      res.writeHead(308, { location: answer.location, 'content-length': '0' });
      res.end();
      return;
  }
}
