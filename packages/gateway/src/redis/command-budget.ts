/** A Redis command did not answer within the command budget. */
export class RedisTimeoutError extends Error {
  constructor(budgetMs: number) {
    super(`Redis did not answer within ${budgetMs} ms`);
    this.name = 'RedisTimeoutError';
  }
}

/**
 * A connection whose reply is this late is given up: commands wait in it without bound
 * otherwise (a connection black-holed by the network is only noticed by TCP after minutes), and a
 * paused Redis would run them all once it resumes.
 */
export interface StuckOptions {
  readonly afterMs: number;
  readonly onStuck: () => void;
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
export function createCommandBudget(budgetMs: number, stuck?: StuckOptions): <T>(reply: Promise<T>) => Promise<T> {
  return function within<T>(reply: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let answered = false;
      let timer = setTimeout(() => {
        setImmediate(() => {
          if (settled) return;
          settled = true;
          reject(new RedisTimeoutError(budgetMs));
          if (stuck !== undefined) {
            timer = setTimeout(
              () => {
                if (!answered) stuck.onStuck();
              },
              Math.max(0, stuck.afterMs - budgetMs),
            );
          }
        });
      }, budgetMs);
      reply.then(
        (value) => {
          answered = true;
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          resolve(value);
        },
        (error: unknown) => {
          answered = true;
          clearTimeout(timer);
          if (settled) return;
          settled = true;
          reject(error);
        },
      );
    });
  };
}
