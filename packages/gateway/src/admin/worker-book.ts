import { QUESTION, type Port } from '../ipc/index.js';
import { AdminError } from './admin-errors.js';
import type { AccountSource } from './admin-routes.js';
import type { AccountBook } from './book/index.js';
import { InvalidCursorError } from './ledger/index.js';

/** How long the admin API waits for the worker's answer (a page is a peek per account, in its memory). */
const ANSWER_TIMEOUT_MS = 10_000;

type Operation = keyof AccountSource;
const OPERATIONS: readonly Operation[] = ['page', 'account', 'billing', 'check', 'liftBan', 'accountOfKey'];

/** The worker's answer: a value, or why not (`invalid_cursor`, or a failure's message). */
type Answer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/**
 * The account book of a gateway's one worker, asked by its primary over its port: without Redis, a
 * single worker keeps its limits (and the ledger) in its own memory, and the admin API is served
 * by the primary. Every operation is one `admin` question; no answer in time is `503
 * limits_unavailable`, as a Redis that does not answer is.
 */
export function bookOfWorker(worker: () => Port | undefined): AccountSource {
  const call = async (operation: Operation, args: readonly unknown[]): Promise<never> => {
    const serving = worker();
    const answer = serving === undefined ? undefined : ((await serving.ask(QUESTION.admin, ANSWER_TIMEOUT_MS, { operation, args })) as Answer | undefined);
    if (answer === undefined)
      throw new AdminError('limits_unavailable', `The worker that keeps the limits did not answer within ${ANSWER_TIMEOUT_MS / 1000} s.`);
    if (answer.ok) return answer.value as never;
    if (answer.error === 'invalid_cursor') throw new InvalidCursorError();
    throw new AdminError('limits_unavailable', `The worker that keeps the limits could not answer: ${answer.error}.`);
  };
  return Object.fromEntries(OPERATIONS.map((operation) => [operation, (...args: unknown[]) => call(operation, args)])) as unknown as AccountSource;
}

/** The worker's side: answers the primary's `admin` questions from its own book. */
export function answerFromBook(book: AccountBook): (args: unknown) => Promise<Answer> {
  return async (args) => {
    const { operation, args: given } = (args ?? {}) as { operation?: unknown; args?: unknown };
    if (typeof operation !== 'string' || !(OPERATIONS as readonly string[]).includes(operation) || !Array.isArray(given)) {
      return { ok: false, error: 'not an admin question' };
    }
    try {
      const method = book[operation as Operation] as (...values: unknown[]) => Promise<unknown>;
      return { ok: true, value: await method(...given) };
    } catch (error) {
      return { ok: false, error: error instanceof InvalidCursorError ? 'invalid_cursor' : (error as Error).message };
    }
  };
}
