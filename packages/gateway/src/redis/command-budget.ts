/** A Redis command did not answer within the command budget. */
export class RedisTimeoutError extends Error {
  constructor(budgetMs: number) {
    super(`Redis did not answer within ${budgetMs} ms`);
    this.name = 'RedisTimeoutError';
  }
}

/**
 * Returns `within(reply)`: the reply, or a `RedisTimeoutError` when Redis has not answered
 * `budgetMs` after the command was written (call it right after writing).
 *
 * The budget is for Redis, not for this process's event loop. A timer alone (ioredis
 * `commandTimeout`) fires in the loop's timers phase, before the poll phase reads the sockets:
 * when a burst keeps the loop busy past the budget, a reply that came back in 1 ms and waits in
 * the socket's buffer is read after its timer fired, and a healthy Redis counts as a failure. So
 * the timer only arms a check for the end of the next poll phase (`setImmediate`): the socket has
 * been read by then, and a reply that is there is used, however late the loop looked at it.
 */
export function createCommandBudget(budgetMs: number): <T>(reply: Promise<T>) => Promise<T> {
  return function within<T>(reply: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        setImmediate(() => {
          if (settled) return;
          settled = true;
          reject(new RedisTimeoutError(budgetMs));
        });
      }, budgetMs);
      reply.then(
        (value) => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          reject(error);
        },
      );
    });
  };
}
