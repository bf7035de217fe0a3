import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import type { Reply } from '../http/reply.js';

export interface RouteContext {
  readonly req: IncomingMessage;
  /** The raw query string, without the `?`. */
  readonly query: string;
  /** The path parameters, in the order of the path template. */
  readonly params: readonly string[];
}

export type RouteHandler = (context: RouteContext) => Promise<Reply>;

/** One line per zod issue, `field: problem`, for the `message` of a 400. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length === 0 ? 'body' : issue.path.join('.')}: ${issue.message}`).join('; ');
}
